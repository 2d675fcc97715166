import Testing
import VersolaCrypto
@testable import VersolaJOSE

@Suite struct Base64URLTests {
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
