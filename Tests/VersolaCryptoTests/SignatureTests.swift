import Testing
@testable import VersolaCrypto

@Suite struct SignatureTests {
    static let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UifQ".utf8)
    /// The order n of the P-256 group.
    static let p256Order = TestBytes.hex("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551")

    @Test func es256SignsRawSignaturesThatVerify() throws {
        let key = try P256PrivateKey()
        let signature = try key.signES256(Self.message)
        #expect(signature.count == 64)
        #expect(key.verificationKey.verify(signature: signature, message: Self.message, algorithm: .es256))
        // ECDSA is randomised: two signatures of one message differ, both verify.
        let again = try key.signES256(Self.message)
        #expect(again != signature)
        #expect(key.verificationKey.verify(signature: again, message: Self.message, algorithm: .es256))
    }

    @Test func es256PublicKeyRebuiltFromCoordinatesVerifies() throws {
        let key = try P256PrivateKey()
        let signature = try key.signES256(Self.message)
        let rebuilt = try VerificationKey.ec(curve: .p256, x: key.publicKey.x, y: key.publicKey.y)
        #expect(rebuilt.verify(signature: signature, message: Self.message, algorithm: .es256))
    }

    @Test func p256PrivateKeyRoundTripsThroughItsRawRepresentation() throws {
        let key = try P256PrivateKey()
        let restored = try P256PrivateKey(rawRepresentation: key.rawRepresentation)
        #expect(restored.publicKey.x == key.publicKey.x)
        #expect(restored.publicKey.y == key.publicKey.y)
        let signature = try restored.signES256(Self.message)
        #expect(key.verificationKey.verify(signature: signature, message: Self.message, algorithm: .es256))
    }

    @Test func p256PrivateKeyRejectsOutOfRangeScalars() {
        #expect(throws: CryptoError.self) { try P256PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: CryptoError.self) { try P256PrivateKey(rawRepresentation: Self.p256Order) }
        #expect(throws: CryptoError.self) { try P256PrivateKey(rawRepresentation: [1, 2, 3]) }
    }

    @Test func privateKeysNeverDescribeTheirSecret() throws {
        let key = try P256PrivateKey()
        #expect(key.description == "P256PrivateKey(<redacted>)")
        #expect(!"\(key)".contains(TestBytes.hexString(key.rawRepresentation)))
    }

    @Test func es256RejectsTamperedTruncatedZeroAndOutOfRangeSignatures() throws {
        let key = try P256PrivateKey()
        let verifier = key.verificationKey
        let signature = try key.signES256(Self.message)

        var flippedMessage = Self.message
        flippedMessage[3] ^= 0x01
        #expect(!verifier.verify(signature: signature, message: flippedMessage, algorithm: .es256))

        var flippedSignature = signature
        flippedSignature[10] ^= 0x80
        #expect(!verifier.verify(signature: flippedSignature, message: Self.message, algorithm: .es256))

        #expect(!verifier.verify(signature: Array(signature.dropLast()), message: Self.message, algorithm: .es256))
        #expect(!verifier.verify(signature: [], message: Self.message, algorithm: .es256))
        #expect(!verifier.verify(signature: signature + [0], message: Self.message, algorithm: .es256))
        #expect(
            !verifier.verify(signature: [UInt8](repeating: 0, count: 64), message: Self.message, algorithm: .es256))

        // r = n and s = n are outside [1, n-1]; r + n (mod 2^256) aliasing must not verify.
        let r = Array(signature[0..<32])
        let s = Array(signature[32...])
        #expect(!verifier.verify(signature: Self.p256Order + s, message: Self.message, algorithm: .es256))
        #expect(!verifier.verify(signature: r + Self.p256Order, message: Self.message, algorithm: .es256))
        #expect(
            !verifier.verify(
                signature: [UInt8](repeating: 0xFF, count: 32) + s, message: Self.message, algorithm: .es256))
    }

    @Test func ecKeysVerifyOnlyTheirOwnCurvesAlgorithm() throws {
        let p384 = try VerificationKey.generatedEC(curve: .p384)
        #expect(p384.supports(.es384))
        #expect(!p384.supports(.es256))
        #expect(!p384.supports(.rs256))
        #expect(!p384.supports(.edDSA))
        let key = try P256PrivateKey()
        let signature = try key.signES256(Self.message)
        #expect(!p384.verify(signature: signature, message: Self.message, algorithm: .es256))
        #expect(!key.verificationKey.verify(signature: signature, message: Self.message, algorithm: .es384))
        #expect(!key.verificationKey.verify(signature: signature, message: Self.message, algorithm: .rs256))
    }

    @Test func ecPublicKeysMustBeOnTheCurve() {
        let x = [UInt8](repeating: 1, count: 32)
        #expect(throws: CryptoError.self) { try VerificationKey.ec(curve: .p256, x: x, y: x) }
        #expect(throws: CryptoError.self) { try VerificationKey.ec(curve: .p256, x: [1], y: [2]) }
        #expect(throws: CryptoError.self) { try VerificationKey.ec(curve: .p384, x: x, y: x) }
    }

    @Test(arguments: [SignatureAlgorithm.rs256, .rs384, .rs512, .ps256, .ps384, .ps512])
    func rsaSignaturesVerifyAndTamperingFails(algorithm: SignatureAlgorithm) throws {
        let key = try SharedKeys.rsa()
        let signature = try key.sign(Self.message, algorithm: algorithm)
        let verifier = try VerificationKey.rsa(modulus: key.modulus, exponent: key.exponent)
        #expect(verifier.kind == .rsa(bits: 2048))
        #expect(verifier.verify(signature: signature, message: Self.message, algorithm: algorithm))

        var flipped = signature
        flipped[0] ^= 1
        #expect(!verifier.verify(signature: flipped, message: Self.message, algorithm: algorithm))
        #expect(!verifier.verify(signature: Array(signature.dropLast()), message: Self.message, algorithm: algorithm))
        #expect(
            !verifier.verify(
                signature: [UInt8](repeating: 0, count: signature.count), message: Self.message, algorithm: algorithm))
        #expect(!verifier.verify(signature: signature, message: Self.message + [0], algorithm: algorithm))
        // Each padding verifies only its own scheme and hash.
        let other: SignatureAlgorithm = algorithm == .rs256 ? .ps256 : .rs256
        #expect(!verifier.verify(signature: signature, message: Self.message, algorithm: other))
    }

    @Test func rsaKeysNeverVerifyEcOrEdAlgorithms() throws {
        let verifier = try SharedKeys.rsa().verificationKey
        for algorithm in [SignatureAlgorithm.es256, .es384, .es512, .edDSA] {
            #expect(!verifier.supports(algorithm))
        }
    }

    @Test func rsaPublicKeysOutsideTheBoundsAreRefused() throws {
        let key = try SharedKeys.rsa()
        // 1024-bit modulus: too short for JWS (RFC 7518 §3.3).
        #expect(throws: CryptoError.self) {
            try VerificationKey.rsa(modulus: Array(key.modulus.prefix(128)), exponent: key.exponent)
        }
        #expect(throws: CryptoError.self) { try VerificationKey.rsa(modulus: key.modulus, exponent: [2]) }
        #expect(throws: CryptoError.self) { try VerificationKey.rsa(modulus: key.modulus, exponent: [1]) }
        #expect(throws: CryptoError.self) { try VerificationKey.rsa(modulus: key.modulus, exponent: []) }
        // Leading zero bytes are tolerated.
        let padded = try VerificationKey.rsa(modulus: [0] + key.modulus, exponent: [0] + key.exponent)
        #expect(padded.kind == .rsa(bits: 2048))
    }

    // RFC 8037 appendix A.1/A.4: the Ed25519 key and the signature of the example JWS.
    @Test func ed25519VerifiesTheRFC8037Example() throws {
        let publicKey = TestBytes.base64url("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo")
        let signature = TestBytes.base64url(
            "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg")
        let input = Array("eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc".utf8)
        let key = try VerificationKey.ed25519(publicKey: publicKey)
        #expect(key.verify(signature: signature, message: input, algorithm: .edDSA))
        #expect(!key.verify(signature: signature, message: input + [0x2E], algorithm: .edDSA))
        #expect(!key.verify(signature: signature, message: input, algorithm: .es256))
        #expect(throws: CryptoError.self) { try VerificationKey.ed25519(publicKey: Array(publicKey.dropLast())) }
    }
}

/// One RSA key for the whole suite: generating one costs tens of milliseconds.
enum SharedKeys {
    private static let shared = Result { () throws(CryptoError) -> RSAPrivateKey in try RSAPrivateKey(bits: 2048) }

    static func rsa() throws -> RSAPrivateKey {
        try shared.get()
    }
}

extension TestBytes {
    static func hexString(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// The algorithms' own equality and hashing (by case, not by name).
@Suite("signature algorithm identity")
struct SignatureAlgorithmIdentityTests {
    @Test("each algorithm equals itself alone, and no two share a hash")
    func eachAlgorithmIsItself() {
        for a in SignatureAlgorithm.allCases {
            for b in SignatureAlgorithm.allCases {
                #expect((a == b) == (a.rawValue == b.rawValue), "\(a) and \(b)")
            }
        }
        #expect(Set(SignatureAlgorithm.allCases).count == SignatureAlgorithm.allCases.count)
        #expect(Set(SignatureAlgorithm.allCases.map(\.hashValue)).count == SignatureAlgorithm.allCases.count)
        let allowed: Set<SignatureAlgorithm> = [.rs256, .es256]
        #expect(allowed.contains(SignatureAlgorithm(rawValue: "RS256")!) && !allowed.contains(.ps256))
    }
}
