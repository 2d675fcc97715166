import Testing
import VersolaCrypto
@testable import VersolaJOSE

/// Compact JWS parsing, verification and signing (SPEC A7: allow-list, never `none`, never HMAC
/// with a public key; D2: ES256 proofs with a public `jwk` header).
@Suite struct JWSTests {
    // MARK: Helpers

    /// Builds a compact token from raw header JSON, payload bytes and signature bytes.
    private func token(header: String, payload: [UInt8] = Array("{}".utf8), signature: [UInt8] = [1, 2, 3]) -> String {
        Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(payload) + "." + Base64URL.encode(signature)
    }

    private func parseError(_ compact: String, understood: Set<String> = []) -> JWSError? {
        do {
            _ = try JWS(compact: compact, understoodCriticalParameters: understood)
            return nil
        } catch {
            return error
        }
    }

    private func verifyError(_ jws: JWS, _ key: JWK, allowed: Set<SignatureAlgorithm> = Set(SignatureAlgorithm.allCases)) -> JWSError? {
        do {
            try jws.verify(with: key, allowedAlgorithms: allowed)
            return nil
        } catch {
            return error
        }
    }

    /// Replaces one part of a compact token.
    private func replacing(part index: Int, of compact: String, with text: String) -> String {
        var parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[index] = text
        return parts.joined(separator: ".")
    }

    /// HMAC-SHA-256 (RFC 2104), only to forge the algorithm-confusion token.
    private func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = SHA256.hash(block.map { $0 ^ 0x36 } + message)
        return SHA256.hash(block.map { $0 ^ 0x5c } + inner)
    }

    /// The base point of P-384, a valid P-384 public key (private key 1).
    private static let p384Key = """
        {"kty":"EC","crv":"P-384","x":"\(Base64URL.encode(hex: "aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7"))","y":"\(Base64URL.encode(hex: "3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f"))"}
        """

    /// The order n of P-256.
    private static let p256Order = [UInt8](hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

    /// One RSA key for the signing tests (generation is slow, so share it).
    private static let rsaKey = Result { () throws(CryptoError) in try RSAPrivateKey(bits: 2048) }

    // MARK: Published vectors

    /// RFC 7515 A.2: the RS256 example verifies with the example key.
    @Test func rfc7515AppendixA2RS256Verifies() throws {
        let jws = try JWS(compact: RFCVectors.rfc7515RS256Token)
        #expect(jws.algorithm == .rs256)
        let key = try JWK(parsing: RFCVectors.rfc7515RSAKey)
        try jws.verify(with: key, allowedAlgorithms: [.rs256])
        let claims = try jws.payloadJSON()
        #expect(claims["iss"]?.string == "joe")
        #expect(claims["exp"]?.int64 == 1_300_819_380)
        #expect(claims["http://example.com/is_root"]?.bool == true)
    }

    /// RFC 7515 A.3: the ES256 example verifies with the example key.
    @Test func rfc7515AppendixA3ES256Verifies() throws {
        let jws = try JWS(compact: RFCVectors.rfc7515ES256Token)
        #expect(jws.algorithm == .es256)
        try jws.verify(with: try JWK(parsing: RFCVectors.rfc7515ECKey), allowedAlgorithms: [.es256])
    }

    /// RFC 8037 A.4: the Ed25519 example verifies with the A.2 key.
    @Test func rfc8037AppendixA4EdDSAVerifies() throws {
        let jws = try JWS(compact: RFCVectors.rfc8037Token)
        #expect(jws.algorithm == .edDSA)
        #expect(String(decoding: jws.payload, as: UTF8.self) == "Example of Ed25519 signing")
        try jws.verify(with: try JWK(parsing: RFCVectors.rfc8037Key), allowedAlgorithms: [.edDSA])
    }

    // MARK: Tampered signatures

    @Test func flippedPayloadBitFailsForEveryVector() throws {
        let cases = [
            (RFCVectors.rfc7515RS256Token, RFCVectors.rfc7515RSAKey),
            (RFCVectors.rfc7515ES256Token, RFCVectors.rfc7515ECKey),
            (RFCVectors.rfc8037Token, RFCVectors.rfc8037Key),
        ]
        for (compact, keyText) in cases {
            let original = try JWS(compact: compact)
            var payload = original.payload
            payload[0] ^= 0x01
            let tampered = try JWS(compact: replacing(part: 1, of: compact, with: Base64URL.encode(payload)))
            #expect(verifyError(tampered, try JWK(parsing: keyText)) == .invalidSignature)
        }
    }

    @Test func truncatedAndAllZeroSignaturesFail() throws {
        let cases = [
            (RFCVectors.rfc7515RS256Token, RFCVectors.rfc7515RSAKey),
            (RFCVectors.rfc7515ES256Token, RFCVectors.rfc7515ECKey),
            (RFCVectors.rfc8037Token, RFCVectors.rfc8037Key),
        ]
        for (compact, keyText) in cases {
            let key = try JWK(parsing: keyText)
            let signature = try JWS(compact: compact).signature
            for bad in [Array(signature.dropLast()), [UInt8](repeating: 0, count: signature.count), [], signature + [0]] {
                let jws = try JWS(compact: replacing(part: 2, of: compact, with: Base64URL.encode(bad)))
                #expect(verifyError(jws, key) == .invalidSignature)
            }
        }
    }

    /// ECDSA `r` or `s` zero or not below the group order n is rejected.
    @Test func ecdsaScalarsOutOfRangeFail() throws {
        let key = try JWK(parsing: RFCVectors.rfc7515ECKey)
        let signature = try JWS(compact: RFCVectors.rfc7515ES256Token).signature
        let r = Array(signature[0..<32])
        let s = Array(signature[32..<64])
        let zero = [UInt8](repeating: 0, count: 32)
        let ones = [UInt8](repeating: 0xFF, count: 32)
        for bad in [zero + s, r + zero, Self.p256Order + s, r + Self.p256Order, ones + s, r + ones] {
            let jws = try JWS(compact: replacing(part: 2, of: RFCVectors.rfc7515ES256Token, with: Base64URL.encode(bad)))
            #expect(verifyError(jws, key) == .invalidSignature)
        }
    }

    // MARK: Algorithm choice (A7)

    @Test func keyOfTheWrongCurveOrTypeNeverVerifies() throws {
        let es256 = try JWS(compact: RFCVectors.rfc7515ES256Token)
        let rs256 = try JWS(compact: RFCVectors.rfc7515RS256Token)
        let eddsa = try JWS(compact: RFCVectors.rfc8037Token)
        let p384 = try JWK(parsing: Self.p384Key)
        let rsa = try JWK(parsing: RFCVectors.rfc7515RSAKey)
        let ec = try JWK(parsing: RFCVectors.rfc7515ECKey)
        let ed = try JWK(parsing: RFCVectors.rfc8037Key)
        #expect(verifyError(es256, p384) == .keyDoesNotPermitAlgorithm(.es256))  // wrong curve
        #expect(verifyError(es256, rsa) == .keyDoesNotPermitAlgorithm(.es256))
        #expect(verifyError(es256, ed) == .keyDoesNotPermitAlgorithm(.es256))
        #expect(verifyError(rs256, ec) == .keyDoesNotPermitAlgorithm(.rs256))
        #expect(verifyError(rs256, ed) == .keyDoesNotPermitAlgorithm(.rs256))
        #expect(verifyError(eddsa, ec) == .keyDoesNotPermitAlgorithm(.edDSA))
        #expect(verifyError(eddsa, rsa) == .keyDoesNotPermitAlgorithm(.edDSA))
        #expect(throws: JWSError.keyDoesNotPermitAlgorithm(.es256)) {
            try es256.verify(with: p384.verificationKey, allowedAlgorithms: [.es256])
        }
    }

    @Test func algorithmOutsideTheAllowListIsRejectedBeforeAnyKeyIsTried() throws {
        let jws = try JWS(compact: RFCVectors.rfc7515RS256Token)
        let key = try JWK(parsing: RFCVectors.rfc7515RSAKey)
        #expect(verifyError(jws, key, allowed: [.es256, .ps256]) == .algorithmNotAllowed(.rs256))
        #expect(verifyError(jws, key, allowed: []) == .algorithmNotAllowed(.rs256))
        #expect(throws: JWSError.algorithmNotAllowed(.rs256)) {
            try jws.verify(using: JWKSet(keys: [key]), allowedAlgorithms: [.es256])
        }
    }

    @Test func algorithmNoneIsAlwaysRejected() {
        #expect(parseError(token(header: #"{"alg":"none"}"#, signature: [])) == .algorithmNone)
        #expect(parseError(token(header: #"{"alg":"none","typ":"JWT"}"#)) == .algorithmNone)
    }

    /// An HS256 token whose HMAC key is the RSA public key's bytes (algorithm confusion) is
    /// rejected whatever the caller allows: HMAC is never verified.
    @Test func hmacTokenSignedWithThePublicKeyIsRejected() throws {
        let header = Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8))
        let payload = RFCVectors.rfc7515Payload
        let publicKeyBytes = Array(RFCVectors.rfc7515RSAKey.utf8)
        let mac = hmacSHA256(key: publicKeyBytes, message: Array("\(header).\(payload)".utf8))
        let forged = "\(header).\(payload).\(Base64URL.encode(mac))"
        #expect(parseError(forged) == .unsupportedAlgorithm("HS256"))
        for name in ["HS384", "HS512", "RS1", "ES256K", "rs256", ""] {
            #expect(parseError(token(header: #"{"alg":"\#(name)"}"#)) == .unsupportedAlgorithm(name))
        }
    }

    // MARK: Structure

    @Test func tokensWithoutExactlyThreePartsAreRejected() {
        #expect(parseError("") == .wrongNumberOfParts(1))
        #expect(parseError("eyJhbGciOiJSUzI1NiJ9.e30") == .wrongNumberOfParts(2))
        #expect(parseError(RFCVectors.rfc7515ES256Token + ".AA") == .wrongNumberOfParts(4))
        #expect(parseError("....") == .wrongNumberOfParts(5))
    }

    @Test func headerMustBeAJSONObjectWithAStringAlg() {
        #expect(parseError(token(header: "[]")) == .headerNotAnObject)
        #expect(parseError(token(header: #""RS256""#)) == .headerNotAnObject)
        #expect(parseError(token(header: "{}")) == .missingAlgorithm)
        #expect(parseError(token(header: #"{"alg":256}"#)) == .invalidHeaderParameter("alg"))
        #expect(parseError(token(header: #"{"alg":"ES256","kid":1}"#)) == .invalidHeaderParameter("kid"))
        #expect(parseError(token(header: #"{"alg":"ES256","alg":"RS256"}"#))
            == .invalidJSON(.header, JSONError(.duplicateMember("alg"), at: 15)))
        #expect(parseError(token(header: #"{"alg":"ES256"} "#)) == nil)
        #expect(parseError(token(header: #"{"alg":"ES256"}x"#)) == .invalidJSON(.header, JSONError(.trailingCharacters, at: 15)))
    }

    @Test func badBase64URLInAnyPartIsRejected() {
        let valid = RFCVectors.rfc7515ES256Token
        #expect(parseError(replacing(part: 0, of: valid, with: "eyJhbGciOiJFUzI1NiJ9=")) == .invalidBase64URL(.header, .paddingNotAllowed))
        #expect(parseError(replacing(part: 1, of: valid, with: "e30+")) == .invalidBase64URL(.payload, .invalidCharacter(offset: 3)))
        #expect(parseError(replacing(part: 2, of: valid, with: "AAAAA")) == .invalidBase64URL(.signature, .impossibleLength(5)))
        #expect(parseError(replacing(part: 2, of: valid, with: "AB")) == .invalidBase64URL(.signature, .nonCanonicalTrailingBits))
    }

    @Test func criticalParametersMustBeUnderstood() throws {
        let header = #"{"alg":"ES256","crit":["exp"],"exp":1363284000}"#
        #expect(parseError(token(header: header)) == .unsupportedCriticalParameters(["exp"]))
        #expect(parseError(token(header: header), understood: ["exp"]) == nil)
        // Malformed `crit` is rejected whatever the caller understands.
        for bad in [
            #"{"alg":"ES256","crit":[]}"#, #"{"alg":"ES256","crit":"exp","exp":1}"#,
            #"{"alg":"ES256","crit":["exp"]}"#, #"{"alg":"ES256","crit":["alg"]}"#,
            #"{"alg":"ES256","crit":["exp","exp"],"exp":1}"#, #"{"alg":"ES256","crit":[1]}"#,
        ] {
            #expect(parseError(token(header: bad), understood: ["exp"]) == .invalidCriticalParameters, "\(bad)")
        }
    }

    // MARK: Key selection from a set

    @Test func keyIsChosenFromTheSetByKidAndAlgorithm() throws {
        let set = try JWKSet(parsing: """
            {"keys":[
              {"kty":"RSA","kid":"rsa-enc","use":"enc","n":"\(rsaModulus)","e":"AQAB"},
              \(Self.p384Key.dropLast()),"kid":"ec"},
              \(RFCVectors.rfc7515ECKey.dropLast()),"kid":"ec"},
              \(RFCVectors.rfc7515RSAKey.dropLast()),"kid":"rsa"}
            ]}
            """)
        #expect(set.keys.count == 4)
        let signed = try JWS.sign(header: ["kid": "rsa"], payload: [1, 2], signer: .rsa(rsaPrivateKey()))
        #expect(throws: JWSError.invalidSignature) {
            // Same kid, same algorithm, but another key's signature.
            try JWS(compact: signed).verify(using: set, allowedAlgorithms: [.rs256])
        }
        // The RFC's ES256 token names no kid: the P-256 key is found among the EC keys.
        let es256 = try JWS(compact: RFCVectors.rfc7515ES256Token)
        #expect(try es256.verify(using: set, allowedAlgorithms: [.es256]).keyID == "ec")
        // The RFC's RS256 token names no kid either: the "enc" RSA key is skipped, the "sig"-capable one verifies.
        let rs256 = try JWS(compact: RFCVectors.rfc7515RS256Token)
        #expect(try rs256.verify(using: set, allowedAlgorithms: [.rs256]).keyID == "rsa")
    }

    @Test func unknownKidAndIncompatibleKeysAreDistinctErrors() throws {
        let set = try JWKSet(parsing: """
            {"keys":[\(RFCVectors.rfc7515ECKey.dropLast()),"kid":"ec"}, \(RFCVectors.rfc8037Key.dropLast()),"kid":"ed"}]}
            """)
        let withKid = { (kid: String, alg: String) in
            try JWS(compact: self.token(header: #"{"alg":"\#(alg)","kid":"\#(kid)"}"#, signature: [UInt8](repeating: 1, count: 64)))
        }
        #expect(throws: JWSError.keyNotFound(keyID: "other")) {
            try withKid("other", "ES256").verify(using: set, allowedAlgorithms: [.es256])
        }
        #expect(throws: JWSError.keyDoesNotPermitAlgorithm(.rs256)) {
            try withKid("ec", "RS256").verify(using: set, allowedAlgorithms: [.rs256])
        }
        #expect(throws: JWSError.invalidSignature) {
            try withKid("ec", "ES256").verify(using: set, allowedAlgorithms: [.es256])
        }
        #expect(throws: JWSError.keyNotFound(keyID: nil)) {
            try JWS(compact: RFCVectors.rfc7515RS256Token).verify(using: set, allowedAlgorithms: [.rs256])
        }
        #expect(!set.containsKey(withID: "other"))
        #expect(set.containsKey(withID: "ed"))
    }

    // MARK: Signing

    private var rsaModulus: String { Base64URL.encode((try? Self.rsaKey.get().modulus) ?? []) }

    private func rsaPrivateKey() throws -> RSAPrivateKey { try Self.rsaKey.get() }

    /// D2: an ES256 proof with the public key in the header verifies with that key.
    @Test func es256SignedTokenVerifiesWithTheEmbeddedPublicKey() throws {
        let privateKey = try P256PrivateKey()
        let publicJWK = try JWK(material: .ec(curve: .p256, x: privateKey.publicKey.x, y: privateKey.publicKey.y))
        let compact = try JWS.sign(
            header: ["typ": "dpop+jwt", "jwk": publicJWK.jsonValue],
            payload: ["jti": "id-1", "htm": "POST", "htu": "https://as.example/token", "iat": 1_700_000_000],
            signer: .es256(privateKey))
        let jws = try JWS(compact: compact)
        #expect(jws.header.names == ["alg", "typ", "jwk"])
        #expect(jws.algorithm == .es256)
        #expect(jws.type == "dpop+jwt")
        #expect(jws.signature.count == 64)
        #expect(String(decoding: jws.payload, as: UTF8.self)
            == #"{"jti":"id-1","htm":"POST","htu":"https://as.example/token","iat":1700000000}"#)
        let embedded = try JWK(json: try #require(jws.header["jwk"]))
        try jws.verify(with: embedded, allowedAlgorithms: [.es256])
        #expect(embedded.thumbprint() == publicJWK.thumbprint())
    }

    @Test func rsaSignedTokensVerifyForRSAndPS() throws {
        let key = try rsaPrivateKey()
        let jwk = try JWK(material: .rsa(modulus: key.modulus, exponent: key.exponent), keyID: "k1")
        for algorithm in [SignatureAlgorithm.rs256, .ps256, .rs384, .ps512] {
            let compact = try JWS.sign(header: ["alg": .string(algorithm.rawValue), "kid": "k1"], payload: ["sub": "a"], signer: .rsa(key, algorithm: algorithm))
            let jws = try JWS(compact: compact)
            #expect(jws.keyID == "k1")
            #expect(try jws.verify(using: JWKSet(keys: [jwk]), allowedAlgorithms: [algorithm]).keyID == "k1")
        }
    }

    @Test func signingRejectsAHeaderNamingAnotherAlgorithm() throws {
        let key = try P256PrivateKey()
        #expect(throws: JWSError.signerAlgorithmMismatch(header: "RS256", signer: .es256)) {
            try JWS.sign(header: ["alg": "RS256"], payload: [1], signer: .es256(key))
        }
        let compact = try JWS.sign(header: ["alg": "ES256"], payload: [1], signer: .es256(key))
        #expect(try JWS(compact: compact).header.names == ["alg"])
    }

    @Test func signerFailureIsReported() {
        let failing = JWSSigner(algorithm: .es256) { _ throws(CryptoError) in throw .operationFailed("hardware key gone") }
        #expect(throws: JWSError.signingFailed(.operationFailed("hardware key gone"))) {
            try JWS.sign(header: [:], payload: [1], signer: failing)
        }
    }
}

extension Base64URL {
    /// Encodes the bytes written as hex (test helper).
    static func encode(hex: String) -> String { encode([UInt8](hex: hex)) }
}

extension [UInt8] {
    /// Bytes from hex digits (test helper; traps on bad input, which is test data only).
    init(hex: String) {
        let digits = Array(hex.utf8)
        self = stride(from: 0, to: digits.count, by: 2).map { index in
            UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) ?? 0
        }
    }
}
