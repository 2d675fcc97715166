import Testing
import VersolaCrypto
@testable import VersolaJOSE

@Suite struct Base64URLTests {
    /// Base64url by its definition, six bits at a time: what the table-driven and block coders
    /// are checked against.
    static func reference(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var bits = 0
        var pending = 0
        var out: [UInt8] = []
        for byte in bytes {
            bits = (bits << 8 | Int(byte)) & 0xFFFF
            pending += 8
            while pending >= 6 {
                pending -= 6
                out.append(alphabet[(bits >> pending) & 63])
            }
        }
        if pending > 0 { out.append(alphabet[(bits << (6 - pending)) & 63]) }
        return String(decoding: out, as: UTF8.self)
    }

    @Test func encodesRFC4648Vectors() {
        // RFC 4648 §10 vectors, base64url alphabet and no padding.
        #expect(Base64URL.encode(Array("".utf8)) == "")
        #expect(Base64URL.encode(Array("f".utf8)) == "Zg")
        #expect(Base64URL.encode(Array("fo".utf8)) == "Zm8")
        #expect(Base64URL.encode(Array("foo".utf8)) == "Zm9v")
        #expect(Base64URL.encode(Array("foob".utf8)) == "Zm9vYg")
        #expect(Base64URL.encode(Array("fooba".utf8)) == "Zm9vYmE")
        #expect(Base64URL.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
    }

    @Test func roundTripsEveryLengthUpTo64() throws {
        for count in 0...64 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Base64URL.encode(bytes)
            #expect(text.utf8.count == Base64URL.encodedLength(count))
            #expect(try Base64URL.decode(text) == bytes)
        }
    }

    /// The table-driven encoder and decoder against the definition, six bits at a time: every
    /// byte value at each position of a group, and the symbol of every 6-bit value.
    @Test func agreesWithTheBitByBitDefinition() throws {
        for value in 0...255 {
            for count in 1...7 {
                for position in 0..<count {
                    var bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ value) }
                    bytes[position] = UInt8(value)
                    let text = Base64URL.encode(bytes)
                    #expect(text == Self.reference(bytes))
                    #expect(try Base64URL.decode(text) == bytes)
                }
            }
        }
    }

    /// Long inputs are encoded 24 bytes at a time where the processor can (base64.c): every
    /// byte value at positions in each lane of several blocks, and every length around the
    /// blocks' edges, against the bit-by-bit definition.
    @Test func blockEncodingAgreesWithTheDefinition() throws {
        let base = (0..<120).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ 13) }
        for count in 0...120 {
            #expect(Base64URL.encode(Array(base[..<count])) == Self.reference(Array(base[..<count])), "length \(count)")
        }
        for position in [0, 1, 2, 3, 4, 11, 12, 23, 24, 27, 28, 47, 48, 71, 95, 119] {
            for value in 0...255 {
                var bytes = base
                bytes[position] = UInt8(value)
                #expect(Base64URL.encode(bytes) == Self.reference(bytes), "byte \(value) at \(position)")
            }
        }
    }

    /// Decoding into a larger buffer writes the decoded bytes and nothing after them (groups are
    /// stored a word at a time inside the decoded length only).
    @Test func decodingWritesNothingPastTheDecodedLength() throws {
        for count in 0...24 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 53 &+ 7) }
            var text = Array(Base64URL.encode(bytes).utf8)
            var output = [UInt8](repeating: 0xA5, count: count + 8)
            let written = try text.withUnsafeMutableBytes { input in
                try output.withUnsafeMutableBufferPointer { try Base64URL.decode(UnsafeRawBufferPointer(input), into: $0) }
            }
            #expect(written == count)
            #expect(Array(output[..<count]) == bytes)
            #expect(output[count...].allSatisfy { $0 == 0xA5 })
        }
    }

    /// Long texts are decoded 32 characters at a time where the processor can (base64.c); the
    /// result, and the error with its offset, must be the scalar decoder's for every byte value
    /// at every position of a block, whatever block it is in.
    @Test func blockDecodingAgreesWithTheScalarDecoderOnEveryByte() throws {
        let bytes = (0..<120).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 29) }
        let text = Array(Base64URL.encode(bytes).utf8)  // 160 characters: five blocks
        #expect(try Base64URL.decode(bytes: text) == bytes)
        func decodedByGroups(_ input: [UInt8]) -> Result<[UInt8], Base64URLError> {
            // Under 64 characters the decoder takes no blocks: each group of four on its own.
            var output: [UInt8] = []
            for start in stride(from: 0, to: input.count, by: 60) {
                let end = min(start + 60, input.count)
                switch Result(catching: { () throws(Base64URLError) in try Base64URL.decode(bytes: input[start..<end]) }) {
                case .success(let part): output += part
                case .failure(.invalidCharacter(let offset)): return .failure(.invalidCharacter(offset: start + offset))
                case .failure(let error): return .failure(error)
                }
            }
            return .success(output)
        }
        for position in [0, 1, 2, 3, 17, 31, 32, 63, 64, 100, 127, 128, 159] {
            for value in 0...255 {
                var changed = text
                changed[position] = UInt8(value)
                let whole = Result { () throws(Base64URLError) in try Base64URL.decode(bytes: changed) }
                // The reference decodes the same text in pieces of 60 characters, each too short
                // for a block (160 characters are 40 whole groups, so the pieces end on groups).
                #expect(whole == decodedByGroups(changed), "byte \(value) at \(position)")
            }
        }
    }

    @Test func rejectsCharactersOutsideTheAlphabet() {
        #expect(throws: Base64URLError.invalidCharacter(offset: 2)) { try Base64URL.decode("Zm+v") }
        #expect(throws: Base64URLError.invalidCharacter(offset: 2)) { try Base64URL.decode("Zm/v") }
        #expect(throws: Base64URLError.invalidCharacter(offset: 0)) { try Base64URL.decode(" Zm9v") }
        #expect(throws: Base64URLError.invalidCharacter(offset: 4)) { try Base64URL.decode("Zm9v\n") }
        #expect(throws: Base64URLError.invalidCharacter(offset: 1)) { try Base64URL.decode("Zé9v") }
        #expect(throws: Base64URLError.invalidCharacter(offset: 6)) { try Base64URL.decode("Zm9vYm+y") }
        #expect(throws: Base64URLError.invalidCharacter(offset: 9)) { try Base64URL.decode("Zm9vYmFyZ.") }
        #expect(throws: Base64URLError.paddingNotAllowed) { try Base64URL.decode("Zm9vY=Fy") }
    }

    @Test func rejectsPadding() {
        #expect(throws: Base64URLError.paddingNotAllowed) { try Base64URL.decode("Zg==") }
        #expect(throws: Base64URLError.paddingNotAllowed) { try Base64URL.decode("Zm8=") }
    }

    @Test func rejectsImpossibleLengths() {
        #expect(throws: Base64URLError.impossibleLength(1)) { try Base64URL.decode("Z") }
        #expect(throws: Base64URLError.impossibleLength(5)) { try Base64URL.decode("Zm9vY") }
    }

    @Test func rejectsNonCanonicalTrailingBits() {
        // "Zg" is canonical for "f"; "Zh" carries a set unused bit.
        #expect(throws: Base64URLError.nonCanonicalTrailingBits) { try Base64URL.decode("Zh") }
        // "Zm8" is canonical for "fo"; "Zm9" sets an unused bit.
        #expect(throws: Base64URLError.nonCanonicalTrailingBits) { try Base64URL.decode("Zm9") }
    }

    @Test func decodesFromBytes() throws {
        #expect(try Base64URL.decode(bytes: Array("Zm9vYmFy".utf8)) == Array("foobar".utf8))
        #expect(throws: Base64URLError.paddingNotAllowed) { try Base64URL.decode(bytes: Array("Zg==".utf8)) }
    }

    /// RFC 7636 appendix B: the S256 code challenge of the example verifier (A2).
    @Test func pkceS256ChallengeOfRFC7636AppendixB() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let challenge = Base64URL.encode(SHA256.hash(Array(verifier.utf8)))
        #expect(challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }
}
