import Foundation
import Testing
import VersolaCrypto
import VersolaJOSE

@testable import Versola

/// The proof written in place, into the string it is sent as, read back by the strict JOSE
/// parser (D2): the header, the claims and the signature are what the inputs say, whatever
/// characters they hold.
@Suite struct DPoPProofEncoderTests {
    static let awkward = ["GET", "https://api.example/a\"b\\c/\u{01}\u{1F}/é/😀", "n-\"1\"\\\n", "", "x/y+z=="]

    @Test(
        "D2: a proof written in place parses strictly, verifies with its jwk, and carries exactly the claims asked for",
        arguments: [nil, "ath-value", "a\"t\\h"], [nil, "n-1", "\u{7F}\"\\\t nonce"])
    func readsBackStrictly(ath: String?, nonce: String?) throws {
        let key = try DPoPKey.generate()
        for (index, target) in Self.awkward.enumerated() {
            let jti = [UInt8](repeating: UInt8(index), count: DPoPProof.jtiByteCount)
            let text = try DPoPProof.make(
                key: key, method: Self.awkward[(index + 1) % Self.awkward.count], targetURI: target, accessTokenHash: ath,
                nonce: nonce, issuedAt: Date(timeIntervalSince1970: 1_735_689_600.9 + Double(index)), jti: jti)
            let jws = try JWS(compact: text)
            #expect(Array(jws.signingInput.prefix(key.signingInputPrefix.count)) == key.signingInputPrefix)
            #expect(try jws.verify(using: JWKSet(keys: [key.publicJWK]), allowedAlgorithms: [.es256]) == key.publicJWK)
            var expected: JSONObject = [
                "jti": .string(Base64URL.encode(jti)), "htm": .string(Self.awkward[(index + 1) % Self.awkward.count]),
                "htu": .string(target), "iat": .integer(1_735_689_600 + Int64(index)),
            ]
            if let ath { expected["ath"] = .string(ath) }
            if let nonce { expected["nonce"] = .string(nonce) }
            #expect(try JWTClaims(payload: jws.payload).object == expected)
            #expect(text.utf8.count == jws.signingInput.count + 1 + 86)
        }
    }

    @Test("D2: iat is the whole seconds of the clock, written as JSON writes an integer, at any magnitude")
    func issuedAtDigits() throws {
        let key = try DPoPKey.generate()
        let jti = [UInt8](repeating: 1, count: DPoPProof.jtiByteCount)
        for (seconds, expected) in [(0.0, 0), (9.99, 9), (10, 10), (-1.5, -2), (1_735_689_600, 1_735_689_600), (99_999_999_999, 99_999_999_999)]
        as [(Double, Int64)] {
            let text = try DPoPProof.make(
                key: key, method: "GET", targetURI: "https://a.example/", accessTokenHash: nil, nonce: nil,
                issuedAt: Date(timeIntervalSince1970: seconds), jti: jti)
            #expect(try JWTClaims(payload: JWS(compact: text).payload).object["iat"] == .integer(expected))
        }
    }

    @Test("D2: one key's proofs for URLs and tokens that alternate each carry their own htu and ath (nothing kept for the last one leaks into the next)")
    func alternatingTargetsAndTokens() throws {
        let key = try DPoPKey.generate()
        let targets = [
            ("https://API.example:443/v1/a?x=1", "https://api.example/v1/a"), ("http://api.example:80", "http://api.example/"),
            ("https://api.example/v1/b#f", "https://api.example/v1/b"),
        ]
        let tokens = ["token-one", "token-two"]
        for round in 0..<12 {
            let (text, htu) = targets[round % targets.count]
            let token = tokens[round % tokens.count]
            let proof = try DPoPProof.make(
                key: key, method: .post, url: try #require(URL(string: text)), accessToken: token, issuedAt: Date(),
                random: SystemRandomSource())
            let claims = try JWTClaims(payload: JWS(compact: proof).payload).object
            #expect(claims["htu"] == .string(htu))
            #expect(claims["ath"] == .string(DPoPProof.accessTokenHash(token)))
        }
    }
}
