import Testing

@testable import VersolaJOSE

/// The one JSON string writer (serializer and DPoP proofs): every string comes back through the
/// strict parser as itself, the length it announces is the length it writes, and no control
/// character is left raw.
@Suite struct JSONStringWriterTests {
    /// Strings of every awkward kind: runs longer than a word, quotes and backslashes at word
    /// edges, each control character, DEL, non-ASCII of every UTF-8 length.
    static func samples() -> [String] {
        // A linear congruential sequence: the same samples on every run.
        var state: UInt32 = 7
        func next() -> Int {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Int(state >> 8)
        }
        let pieces = ["\"", "\\", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{01}", "\u{1F}", "\u{7F}", "é", "€", "😀", "/", " "]
        var samples = ["", "a", "abcdefgh", "abcdefg\"", "\"abcdefgh", String(repeating: "x", count: 41)]
        samples += (0..<32).map { String(UnicodeScalar(UInt8($0))) }
        for _ in 0..<1_000 {
            var text = ""
            for _ in 0..<next() % 12 {
                if next() % 2 == 0 {
                    text += String(repeating: "k", count: next() % 19)
                } else {
                    text += pieces[next() % pieces.count]
                }
            }
            samples.append(text)
        }
        return samples
    }

    @Test("A strict parse of what is written gives the string back; the announced length is exact")
    func roundTrips() throws {
        for sample in Self.samples() {
            var text = sample
            let written = text.withUTF8 { bytes -> [UInt8] in
                let length = JSONStringWriter.length(of: bytes)
                var output = [UInt8](repeating: 0xEE, count: JSONStringWriter.maximumLength(utf8Count: bytes.count))
                let count = output.withUnsafeMutableBufferPointer { JSONStringWriter.write(bytes, to: $0) }
                #expect(count == length, "length of \(sample.debugDescription)")
                return Array(output[..<count])
            }
            #expect(!written.contains { $0 < 0x20 }, "a raw control character in \(sample.debugDescription)")
            #expect(try JSONValue(parsing: written) == .string(sample))
            var appended: [UInt8] = [0x41]
            JSONStringWriter.append(sample, to: &appended)
            #expect(appended == [0x41] + written)
        }
    }

    @Test("The short escapes are used where JSON has them, \\u00XX elsewhere")
    func escapeForms() {
        var output: [UInt8] = []
        JSONStringWriter.append("\"\\\n\r\t\u{08}\u{0C}\u{01}\u{1F}é", to: &output)
        #expect(String(decoding: output, as: UTF8.self) == #""\"\\\n\r\t\b\f\u0001\u001fé""#)
    }
}
