import CVersolaSystem
import Testing

@testable import VersolaCrypto

/// RSASSA-PKCS1-v1_5 verification compares the whole encoded message (RFC 8017 §8.2.2): a
/// signature over anything but the DigestInfo of the algorithm's own hash followed by the
/// digest is refused, even when it holds the right digest.
@Suite struct PKCS1EncodingTests {
    static let message = Array("eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UifQ".utf8)

    /// Signs `block` as it is, with PKCS #1 v1.5 type 1 padding and no digest: how a signer
    /// would make a signature over a different encoding.
    static func rawSignature(_ key: RSAPrivateKey, over block: [UInt8]) throws -> [UInt8] {
        let context = try #require(EVP_PKEY_CTX_new_from_pkey(nil, key.key.pointer, nil))
        defer { EVP_PKEY_CTX_free(context) }
        try #require(EVP_PKEY_sign_init(context) == 1)
        try #require(EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1)
        var signature = [UInt8](repeating: 0, count: 512)
        var length = signature.count
        try #require(EVP_PKEY_sign(context, &signature, &length, block, block.count) == 1)
        return Array(signature[..<length])
    }

    @Test("RS256 accepts its own encoding and refuses other DigestInfos, a missing NULL and a bare digest")
    func onlyTheExactEncodingVerifies() throws {
        let key = try RSAPrivateKey(bits: 2048)
        let verifier = key.verificationKey
        let sha256 = SHA256.hash(Self.message)
        let sha384 = SHA384.hash(Self.message)

        let exact = DigestFunction.sha256.digestInfoPrefix + sha256
        #expect(verifier.verify(signature: try Self.rawSignature(key, over: exact), message: Self.message, algorithm: .rs256))
        #expect(verifier.verify(signature: try key.sign(Self.message, algorithm: .rs256), message: Self.message, algorithm: .rs256))

        // The same OID without its NULL parameters (a form some old signers wrote).
        let withoutNull: [UInt8] = [0x30, 0x2F, 0x30, 0x0B, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x04, 0x20]
        let refused = [withoutNull + sha256, sha256, DigestFunction.sha384.digestInfoPrefix + sha384, exact + [0]]
        for block in refused {
            let signature = try Self.rawSignature(key, over: block)
            #expect(!verifier.verify(signature: signature, message: Self.message, algorithm: .rs256))
        }
        // The RS384 encoding verifies as RS384 only.
        let rs384 = try Self.rawSignature(key, over: DigestFunction.sha384.digestInfoPrefix + sha384)
        #expect(verifier.verify(signature: rs384, message: Self.message, algorithm: .rs384))
        #expect(!verifier.verify(signature: rs384, message: Self.message, algorithm: .rs512))
    }
}
