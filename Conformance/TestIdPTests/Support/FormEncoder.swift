/// `application/x-www-form-urlencoded` for requests the tests send (their own encoder, so
/// the provider's decoder is tested against an independent one).
enum FormEncoder {
    /// `a=1&b=2`, every byte outside RFC 3986's unreserved set percent-encoded.
    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF")
        var output = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "-._~".unicodeScalars.contains(scalar)
            {
                output.unicodeScalars.append(scalar)
            } else {
                output += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0F)])
            }
        }
        return output
    }
}
