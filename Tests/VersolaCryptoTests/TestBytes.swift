import Foundation

/// Test-only decoders for vectors written as hex or base64url in the RFCs.
enum TestBytes {
    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace }.utf8)
        precondition(digits.count % 2 == 0, "odd hex length in a test vector")
        return stride(from: 0, to: digits.count, by: 2).map { index in
            UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16)!
        }
    }

    static func base64url(_ text: String) -> [UInt8] {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Array(Data(base64Encoded: base64)!)
    }
}
