import VersolaHTTP

/// Form and query handling for the provider: decoding reuses the HTTP server's parser,
/// encoding writes `application/x-www-form-urlencoded` with every reserved byte escaped.
enum FormEncoding {
    /// Decodes `a=1&b=2` into a dictionary; the first occurrence of a name wins.
    static func decode(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for item in HTTPServerQueryItem.parse(text) where result[item.name] == nil {
            result[item.name] = item.value
        }
        return result
    }

    /// Encodes ordered pairs as a form body or query.
    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(percentEncode($0.0))=\(percentEncode($0.1))" }.joined(separator: "&")
    }

    /// Escapes every byte outside the unreserved set of RFC 3986.
    static func percentEncode(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                output.unicodeScalars.append("%")
                output.unicodeScalars.append(digits[Int(byte >> 4)])
                output.unicodeScalars.append(digits[Int(byte & 0x0F)])
            }
        }
        return output
    }

    /// Appends `pairs` to `url` as query items (after `?`, or `&` when it has a query).
    static func appending(_ pairs: [(String, String)], to url: String) -> String {
        guard !pairs.isEmpty else { return url }
        return url + (url.contains("?") ? "&" : "?") + encode(pairs)
    }
}
