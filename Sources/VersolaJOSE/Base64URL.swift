import CVersolaSystem

/// Strict base64url without padding (RFC 7515 §2, RFC 4648 §5).
///
/// Decoding accepts only the canonical encoding: no padding, no whitespace, no characters
/// outside the alphabet, no length of the form 4k+1 and no non-zero unused trailing bits.
///
/// ```swift
/// let text = Base64URL.encode([0xfb, 0xff])   // "-_8"
/// let bytes = try Base64URL.decode(text)      // [0xfb, 0xff]
/// ```
public enum Base64URL {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The two symbols of each 12-bit value, the first in the low byte: an encoder looks up
    /// two symbols at once.
    private static let symbolPairs: [UInt16] = (0..<4096).map { value in
        UInt16(alphabet[value >> 6]) | UInt16(alphabet[value & 63]) << 8
    }

    /// For each of the four positions in a group, every byte's 6-bit value already shifted to
    /// its place in the group's 24 bits, or ``invalidGroupBit`` for bytes outside the alphabet:
    /// a group decodes as four lookups ORed together and one test.
    private static let groupValues: [UInt32] = (0..<4).flatMap { position in
        values.map { $0 == 0xFF ? invalidGroupBit : UInt32($0) << (18 - 6 * position) }
    }
    private static let invalidGroupBit: UInt32 = 1 << 24

    /// 0xFF for bytes outside the alphabet, else the 6-bit value.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    /// Encodes bytes as base64url without padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        encode(Array(bytes))
    }

    /// Encodes an array of bytes as base64url without padding. (An array is what digests and
    /// signatures are: this overload spares callers in other modules the generic entry, which
    /// was a third of an `at_hash` check.)
    public static func encode(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: encodedLength(bytes.count)) { output in
            encode(bytes, into: output)
        }
    }

    /// Appends the encoding of `bytes` to `output` as ASCII bytes (no `String` is made: JWS
    /// serializers build whole compact tokens this way).
    public static func append(encoding bytes: [UInt8], to output: inout [UInt8]) {
        output.append(writing: encodedLength(bytes.count)) { encode(bytes, into: $0) }
    }

    /// The number of characters `encode` produces for `count` bytes.
    public static func encodedLength(_ count: Int) -> Int {
        count / 3 * 4 + (count % 3 == 0 ? 0 : count % 3 + 1)
    }

    /// Writes the encoding of `input` into `output`, which holds at least `encodedLength(input.count)`
    /// bytes, and returns the number written.
    @discardableResult
    static func encode(_ input: [UInt8], into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        input.withUnsafeBufferPointer { source in encode(source, into: output) }
    }

    /// Writes the encoding of bytes held elsewhere into `output`, which holds at least
    /// `encodedLength(input.count)` bytes, and returns the number written (a DPoP proof is
    /// written this way straight into its string).
    package static func encode(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        alphabet.withUnsafeBufferPointer { table in
            symbolPairs.withUnsafeBufferPointer { pairs in encode(input, into: output, table: table, pairs: pairs) }
        }
    }

    /// The loop of ``encode(_:into:)`` over raw buffers: this runs for every signature and proof,
    /// so no index is checked twice (the lengths are checked once, by the caller's arithmetic),
    /// and each three bytes become four symbols in two lookups and one store.
    private static func encode(
        _ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>,
        table: UnsafeBufferPointer<UInt8>, pairs: UnsafeBufferPointer<UInt16>
    ) -> Int {
        precondition(output.count >= encodedLength(input.count), "base64url output too small")
        guard let source = input.baseAddress, let target = output.baseAddress, let symbols = table.baseAddress,
            let symbolPairs = pairs.baseAddress
        else { return 0 }
        var written = 0
        var index = 0
        // Long inputs: 24 bytes at a time where the processor has AVX2 (base64.c).
        if input.count >= 32 {
            index = versola_base64url_encode_blocks(source, input.count, target, output.count, &written)
        }
        let whole = input.count - input.count % 3
        while index < whole {
            let chunk = Int(source[index]) << 16 | Int(source[index + 1]) << 8 | Int(source[index + 2])
            let four = UInt32(symbolPairs[chunk >> 12]) | UInt32(symbolPairs[chunk & 0xFFF]) << 16
            UnsafeMutableRawPointer(target + written).storeBytes(of: four.littleEndian, as: UInt32.self)
            written += 4
            index += 3
        }
        let remaining = input.count - whole
        if remaining > 0 {
            var chunk = UInt32(source[index]) << 16
            if remaining == 2 { chunk |= UInt32(source[index + 1]) << 8 }
            target[written] = symbols[Int(chunk >> 18 & 63)]
            target[written + 1] = symbols[Int(chunk >> 12 & 63)]
            written += 2
            if remaining == 2 {
                target[written] = symbols[Int(chunk >> 6 & 63)]
                written += 1
            }
        }
        return written
    }

    /// Decodes strict base64url text.
    /// - Throws: `Base64URLError` naming the first problem found.
    public static func decode(_ text: some StringProtocol) throws(Base64URLError) -> [UInt8] {
        var contiguous = String(text)
        return try contiguous.withUTF8 { buffer in
            Result { () throws(Base64URLError) in try decode(UnsafeRawBufferPointer(buffer)) }
        }.get()
    }

    /// Decodes strict base64url from ASCII bytes.
    /// - Throws: `Base64URLError` naming the first problem found.
    public static func decode(bytes: some Collection<UInt8>) throws(Base64URLError) -> [UInt8] {
        let contiguous = Array(bytes)
        return try contiguous.withUnsafeBytes { buffer in
            Result { () throws(Base64URLError) in try decode(buffer) }
        }.get()
    }

    /// Decodes strict base64url from a buffer of ASCII bytes.
    static func decode(_ input: UnsafeRawBufferPointer) throws(Base64URLError) -> [UInt8] {
        let outputCount = try decodedLength(input)
        var failure: Base64URLError?
        let result = [UInt8](unsafeUninitializedCapacity: outputCount) { output, initialized in
            do throws(Base64URLError) { initialized = try decode(input, into: output) } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return result
    }

    /// The number of bytes `input` decodes to.
    /// - Throws: `Base64URLError` when no strict base64url text has its length.
    package static func decodedLength(_ input: UnsafeRawBufferPointer) throws(Base64URLError) -> Int {
        let count = input.count
        if count % 4 == 1 {
            // A bad character is the more useful report, so look for one first.
            if let failure = firstInvalidCharacter(input) { throw failure }
            throw .impossibleLength(count)
        }
        return count / 4 * 3 + (count % 4 == 0 ? 0 : count % 4 - 1)
    }

    /// Decodes strict base64url from ASCII bytes into `output`, which holds at least
    /// ``decodedLength(_:)`` bytes (no array is made: a token's parts decode into scratch space).
    /// - Returns: the number of bytes written.
    /// - Throws: `Base64URLError` naming the first problem found.
    package static func decode(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<UInt8>
    ) throws(Base64URLError) -> Int {
        let count = input.count
        let length = try decodedLength(input)
        precondition(output.count >= length, "base64url output too small")
        return try values.withUnsafeBufferPointer { table throws(Base64URLError) -> Int in
            var read = 0
            var written = 0
            groupValues.withUnsafeBufferPointer { groups in
                guard let shifted = groups.baseAddress, let target = output.baseAddress, let source = input.baseAddress
                else { return }
                // Long texts: 32 characters at a time where the processor has AVX2 (base64.c).
                if count >= 64 {
                    read = versola_base64url_decode_blocks(
                        source.assumingMemoryBound(to: UInt8.self), count, target, length, &written)
                }
                // Whole groups of four characters: three bytes each. While the decoded length leaves
                // a fourth byte, the group is stored as one word (its spare byte, still inside the
                // decoded bytes, is overwritten next); nothing past that length is written.
                while count - read >= 4 {
                    let group =
                        shifted[Int(input[read])] | shifted[256 + Int(input[read + 1])] | shifted[512 + Int(input[read + 2])]
                        | shifted[768 + Int(input[read + 3])]
                    if group & invalidGroupBit != 0 { break }
                    if written + 4 <= length {
                        UnsafeMutableRawPointer(target + written).storeBytes(of: (group << 8).bigEndian, as: UInt32.self)
                    } else {
                        target[written] = UInt8(truncatingIfNeeded: group >> 16)
                        target[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                        target[written + 2] = UInt8(truncatingIfNeeded: group)
                    }
                    written += 3
                    read += 4
                }
            }
            return try decodeTail(input, from: read, into: output, at: written, table: table)
        }
    }

    /// The tail of ``decode(_:into:)``: the last two or three characters, or the group holding
    /// a bad character; returns the total number of bytes written.
    private static func decodeTail(
        _ input: UnsafeRawBufferPointer, from start: Int, into output: UnsafeMutableBufferPointer<UInt8>, at offset: Int,
        table: UnsafeBufferPointer<UInt8>
    ) throws(Base64URLError) -> Int {
        var read = start
        var written = offset
        var accumulator: UInt32 = 0
        var pending = 0
        while read < input.count {
            let value = table[Int(input[read])]
            if value == 0xFF {
                throw input[read] == UInt8(ascii: "=") ? .paddingNotAllowed : .invalidCharacter(offset: read)
            }
            accumulator = accumulator << 6 | UInt32(value)
            pending += 1
            read += 1
        }
        if pending == 2 {
            // 12 bits: 8 of data and 4 that an encoder leaves at zero.
            if accumulator & 0xF != 0 { throw .nonCanonicalTrailingBits }
            output[written] = UInt8(truncatingIfNeeded: accumulator >> 4)
            written += 1
        } else if pending == 3 {
            // 18 bits: 16 of data and 2 that an encoder leaves at zero.
            if accumulator & 0x3 != 0 { throw .nonCanonicalTrailingBits }
            output[written] = UInt8(truncatingIfNeeded: accumulator >> 10)
            output[written + 1] = UInt8(truncatingIfNeeded: accumulator >> 2)
            written += 2
        }
        return written
    }

    private static func firstInvalidCharacter(_ input: UnsafeRawBufferPointer) -> Base64URLError? {
        for (offset, byte) in input.enumerated() where values[Int(byte)] == 0xFF {
            return byte == UInt8(ascii: "=") ? .paddingNotAllowed : .invalidCharacter(offset: offset)
        }
        return nil
    }
}
