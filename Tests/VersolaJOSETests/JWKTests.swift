import Testing
import VersolaCrypto
@testable import VersolaJOSE

@Suite struct JWKTests {
    /// RFC 7638 §3.1: the thumbprint ignores `alg` and `kid` and matches the published value (D4).
    @Test func rfc7638ThumbprintOfTheExampleRSAKey() throws {
        let key = try JWK(parsing: RFCVectors.rfc7638Key)
        #expect(key.keyType == .rsa)
        #expect(key.keyID == "2011-04-29")
        #expect(key.algorithm == "RS256")
        #expect(key.thumbprint() == RFCVectors.rfc7638Thumbprint)
        let input = String(decoding: key.thumbprintInput(), as: UTF8.self)
        #expect(input.hasPrefix(#"{"e":"AQAB","kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps"#))
        #expect(!input.contains(" "))
    }

    /// RFC 8037 A.3: the Ed25519 key's thumbprint.
    @Test func rfc8037ThumbprintOfTheEd25519Key() throws {
        let key = try JWK(parsing: RFCVectors.rfc8037Key)
        #expect(key.keyType == .okp)
        #expect(key.thumbprint() == RFCVectors.rfc8037Thumbprint)
        #expect(String(decoding: key.thumbprintInput(), as: UTF8.self)
            == #"{"crv":"Ed25519","kty":"OKP","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#)
    }

    @Test func ecThumbprintInputHasTheFourRequiredMembersInOrder() throws {
        let key = try JWK(parsing: #"{"y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","use":"sig","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","kty":"EC","crv":"P-256","kid":"k"}"#)
        #expect(String(decoding: key.thumbprintInput(), as: UTF8.self)
            == #"{"crv":"P-256","kty":"EC","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#)
        #expect(key.thumbprint() == Base64URL.encode(SHA256.hash(key.thumbprintInput())))
    }

    @Test func jsonValueHasOnlyPublicMembers() throws {
        let key = try JWK(parsing: #"{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","d":"jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI","kid":"a"}"#)
        let json = key.jsonValue
        #expect(json["d"] == nil)
        #expect(json.object?.names == ["crv", "kty", "x", "y", "kid"])
        #expect(try JWK(json: json) == key)
    }

    @Test func rejectsMissingAndMalformedMembers() {
        #expect(throws: JWKError.notAnObject) { try JWK(parsing: "[]") }
        #expect(throws: JWKError.missingMember("kty")) { try JWK(parsing: "{}") }
        #expect(throws: JWKError.invalidMember("kty")) { try JWK(parsing: #"{"kty":1}"#) }
        #expect(throws: JWKError.missingMember("e")) { try JWK(parsing: #"{"kty":"RSA","n":"AQAB"}"#) }
        #expect(throws: JWKError.invalidMember("n")) { try JWK(parsing: #"{"kty":"RSA","n":"AQ==","e":"AQAB"}"#) }
        #expect(throws: JWKError.invalidMember("n")) { try JWK(parsing: #"{"kty":"RSA","n":"AAAA","e":"AQAB"}"#) }
        #expect(throws: JWKError.missingMember("crv")) { try JWK(parsing: #"{"kty":"EC","x":"AA","y":"AA"}"#) }
        #expect(throws: JWKError.unsupportedCurve("secp256k1")) {
            try JWK(parsing: #"{"kty":"EC","crv":"secp256k1","x":"AA","y":"AA"}"#)
        }
        #expect(throws: JWKError.unsupportedCurve("X25519")) { try JWK(parsing: #"{"kty":"OKP","crv":"X25519","x":"AA"}"#) }
        #expect(throws: JWKError.unsupportedKeyType("oct")) { try JWK(parsing: #"{"kty":"oct","k":"c2VjcmV0"}"#) }
        // EC coordinates must have the curve's full size; Ed25519 keys are 32 bytes.
        #expect(throws: JWKError.invalidMember("x")) {
            try JWK(parsing: #"{"kty":"EC","crv":"P-256","x":"AQID","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#)
        }
        #expect(throws: JWKError.invalidMember("x")) { try JWK(parsing: #"{"kty":"OKP","crv":"Ed25519","x":"AQID"}"#) }
        #expect(throws: JWKError.invalidMember("key_ops")) {
            try JWK(parsing: #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","key_ops":"verify"}"#)
        }
        #expect(throws: JWKError.invalidMember("kid")) {
            try JWK(parsing: #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":7}"#)
        }
        #expect(throws: JWKError.invalidJSON(JSONError(.duplicateMember("kty"), at: 13))) {
            try JWK(parsing: #"{"kty":"RSA","kty":"EC"}"#)
        }
    }

    @Test func stripsLeadingZeroBytesOfRSAIntegers() throws {
        let key = try JWK(parsing: RFCVectors.rfc7638Key)
        guard case .rsa(let modulus, let exponent) = key.material else {
            Issue.record("not RSA")
            return
        }
        let padded = try JWK(material: .rsa(modulus: [0] + modulus, exponent: [0, 0] + exponent))
        #expect(padded.material == key.material)
        #expect(padded.thumbprint() == RFCVectors.rfc7638Thumbprint)
    }

    @Test func keySetSkipsUnusableKeysAndSaysWhy() throws {
        let set = try JWKSet(parsing: """
            {"keys":[
              {"kty":"oct","kid":"hmac","k":"c2VjcmV0"},
              \(RFCVectors.rfc8037Key),
              {"kty":"EC","kid":"bad","crv":"P-256","x":"AA"},
              "not a key"
            ]}
            """)
        #expect(set.keys.count == 1)
        #expect(set.keys.first?.keyType == .okp)
        #expect(set.ignoredKeys.map(\.index) == [0, 2, 3])
        #expect(set.ignoredKeys[0] == .init(index: 0, keyID: "hmac", reason: .unsupportedKeyType("oct")))
        #expect(set.ignoredKeys[1].reason == .missingMember("y"))
        #expect(set.ignoredKeys[2].reason == .notAnObject)
    }

    @Test func keySetRejectsADocumentWithoutKeys() {
        #expect(throws: JWKError.missingMember("keys")) { try JWKSet(parsing: "{}") }
        #expect(throws: JWKError.invalidMember("keys")) { try JWKSet(parsing: #"{"keys":{}}"#) }
        #expect(throws: JWKError.notAnObject) { try JWKSet(parsing: "[]") }
        #expect(throws: JWKError.invalidJSON(JSONError(.trailingCharacters, at: 12))) {
            try JWKSet(parsing: #"{"keys":[]} x"#)
        }
    }

    @Test func permitsChecksUseAlgAndKeyOps() throws {
        let x = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
        #expect(try JWK(parsing: #"{"kty":"OKP","crv":"Ed25519","x":"\#(x)"}"#).permits(.edDSA))
        #expect(try JWK(parsing: #"{"kty":"OKP","crv":"Ed25519","x":"\#(x)","use":"sig","alg":"EdDSA","key_ops":["verify"]}"#).permits(.edDSA))
        #expect(try !JWK(parsing: #"{"kty":"OKP","crv":"Ed25519","x":"\#(x)","use":"enc"}"#).permits(.edDSA))
        #expect(try !JWK(parsing: #"{"kty":"OKP","crv":"Ed25519","x":"\#(x)","alg":"ES256"}"#).permits(.edDSA))
        #expect(try !JWK(parsing: #"{"kty":"OKP","crv":"Ed25519","x":"\#(x)","key_ops":["sign"]}"#).permits(.edDSA))
    }
}
