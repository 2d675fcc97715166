/// How Versola writes a JSON string (RFC 8259 §7): quoted, with `"`, `\` and the control
/// characters escaped, everything else (non-ASCII too) as its UTF-8. The serializer and the DPoP
/// proof writer both use it, so a string always comes out the same.
package enum JSONStringWriter {
    /// The most bytes `utf8Count` bytes of text can take once quoted and escaped (each byte as
    /// `\u00XX`).
    package static func maximumLength(utf8Count: Int) -> Int { 6 * utf8Count + 2 }

    /// The exact number of bytes ``write(_:to:)`` writes for `text`.
    package static func length(of text: UnsafeBufferPointer<UInt8>) -> Int {
        var total = 2
        var index = 0
        while index < text.count {
            let run = plainRun(text, from: index)
            total += run
            index += run
            if index < text.count {
                total += escape(text[index]).count
                index += 1
            }
        }
        return total
    }

    /// Writes `text` quoted and escaped at the start of `output`, which holds at least
    /// ``length(of:)`` bytes; returns the number written. Runs that need no escape (nearly
    /// every string: URLs, hashes, nonces) are copied whole.
    @discardableResult
    package static func write(_ text: UnsafeBufferPointer<UInt8>, to output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        guard let target = output.baseAddress else { preconditionFailure("JSON string output is empty") }
        target[0] = UInt8(ascii: "\"")
        var written = 1
        var index = 0
        while index < text.count {
            let run = plainRun(text, from: index)
            if run > 0, let source = text.baseAddress {
                precondition(written + run < output.count, "JSON string output too small")
                (target + written).update(from: source + index, count: run)
                written += run
                index += run
            }
            guard index < text.count else { break }
            let escaped = escape(text[index])
            precondition(written + escaped.count < output.count, "JSON string output too small")
            escaped.withUnsafeBufferPointer { bytes in
                (target + written).update(from: bytes.baseAddress!, count: bytes.count)
            }
            written += escaped.count
            index += 1
        }
        precondition(written < output.count, "JSON string output too small")
        target[written] = UInt8(ascii: "\"")
        return written + 1
    }

    /// Appends `text` quoted and escaped to `output`.
    package static func append(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            output.append(writing: length(of: bytes)) { write(bytes, to: $0) }
        }
    }

    /// How many bytes from `start` on need no escape: eight at a time while a word holds no `"`,
    /// `\` or control character, then one at a time.
    private static func plainRun(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        if let base = text.baseAddress {
            while index + 8 <= text.count, !mayNeedEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) {
                index += 8
            }
        }
        while index < text.count, !needsEscape(text[index]) { index += 1 }
        return index - start
    }

    /// Whether some byte of `word` may be `"`, `\` or below 0x20 (never false when one is: the
    /// "has a zero byte" and "has a byte below n" tests of bit-twiddling lore).
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let found = ((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes) | ((word &- ones &* 0x20) & ~word)
        return found & highs != 0
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20
    }

    /// The escape of a byte that ``needsEscape(_:)``.
    private static func escape(_ byte: UInt8) -> [UInt8] {
        switch byte {
        case UInt8(ascii: "\""): [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
        case UInt8(ascii: "\\"): [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
        case 0x0A: [UInt8(ascii: "\\"), UInt8(ascii: "n")]
        case 0x0D: [UInt8(ascii: "\\"), UInt8(ascii: "r")]
        case 0x09: [UInt8(ascii: "\\"), UInt8(ascii: "t")]
        case 0x08: [UInt8(ascii: "\\"), UInt8(ascii: "b")]
        case 0x0C: [UInt8(ascii: "\\"), UInt8(ascii: "f")]
        default: Array(#"\u00"#.utf8) + [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
