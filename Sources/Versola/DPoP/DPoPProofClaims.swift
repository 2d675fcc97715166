import VersolaJOSE

extension DPoPProof {
    /// Runs `body` with the claims of one proof as JSON, written into scratch space sized for
    /// the worst case: `{"jti":…,"htm":…,"htu":…,"iat":…}`, then `ath` and `nonce` when given. A
    /// proof is made for every attempt of every request, so nothing is built on the way but the
    /// bytes.
    static func withClaimsJSON<R>(
        jti: UnsafeBufferPointer<UInt8>, method: String, targetURI: String, accessTokenHash: String?, nonce: String?, issuedAt: Int64,
        _ body: (UnsafeBufferPointer<UInt8>) throws(VersolaError) -> R
    ) throws(VersolaError) -> R {
        var textBytes = method.utf8.count + targetURI.utf8.count
        textBytes += (accessTokenHash?.utf8.count ?? 0) + (nonce?.utf8.count ?? 0)
        let capacity = 96 + Base64URL.encodedLength(jti.count) + JSONStringWriter.maximumLength(utf8Count: textBytes)
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch throws(VersolaError) -> R in
            var writer = Writer(buffer: scratch)
            writer.literal(#"{"jti":""#)
            writer.count += Base64URL.encode(jti, into: UnsafeMutableBufferPointer(rebasing: scratch[writer.count...]))
            writer.literal(#"","htm":"#)
            writer.string(method)
            writer.literal(#","htu":"#)
            writer.string(targetURI)
            writer.literal(#","iat":"#)
            writer.decimal(issuedAt)
            if let accessTokenHash {
                writer.literal(#","ath":"#)
                writer.string(accessTokenHash)
            }
            if let nonce {
                writer.literal(#","nonce":"#)
                writer.string(nonce)
            }
            writer.literal("}")
            return try body(UnsafeBufferPointer(rebasing: scratch[..<writer.count]))
        }
    }

    /// Appends to scratch space that the caller sized for everything written.
    private struct Writer {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var count = 0

        mutating func literal(_ text: StaticString) {
            text.withUTF8Buffer { bytes in
                precondition(count + bytes.count <= buffer.count, "DPoP claims outgrew their space")
                (buffer.baseAddress! + count).update(from: bytes.baseAddress!, count: bytes.count)
                count += bytes.count
            }
        }

        /// `text` as a JSON string, read where a native string keeps its UTF-8.
        mutating func string(_ text: String) {
            let rest = UnsafeMutableBufferPointer(rebasing: buffer[count...])
            count +=
                text.utf8.withContiguousStorageIfAvailable { JSONStringWriter.write($0, to: rest) }
                ?? Array(text.utf8).withUnsafeBufferPointer { JSONStringWriter.write($0, to: rest) }
        }

        /// `value` in decimal, as JSON writes an integer.
        mutating func decimal(_ value: Int64) {
            if value < 0 {
                buffer[count] = UInt8(ascii: "-")
                count += 1
            }
            var magnitude = value.magnitude
            var digits = 1
            var rest = magnitude / 10
            while rest > 0 {
                digits += 1
                rest /= 10
            }
            precondition(count + digits <= buffer.count, "DPoP claims outgrew their space")
            for position in stride(from: count + digits - 1, through: count, by: -1) {
                buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            count += digits
        }
    }
}
