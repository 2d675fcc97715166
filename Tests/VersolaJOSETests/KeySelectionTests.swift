import Testing
import VersolaCrypto
@testable import VersolaJOSE

/// The one place a key is chosen for a signature: by `kid`, then by what each key permits.
@Suite struct KeySelectionTests {
    static func set() throws -> JWKSet {
        let ec = try P256PrivateKey()
        let other = try P256PrivateKey()
        return JWKSet(keys: [
            try JWK(material: .ec(curve: .p256, x: ec.publicKey.x, y: ec.publicKey.y), keyID: "ec-1", use: "sig"),
            try JWK(material: .ec(curve: .p256, x: other.publicKey.x, y: other.publicKey.y), keyID: "ec-2", use: "sig"),
            try JWK(material: .ec(curve: .p256, x: other.publicKey.x, y: other.publicKey.y), keyID: "enc", use: "enc"),
        ])
    }

    @Test func aKeyIDNamesItsKeyAndOnlyKeysThatPermitTheAlgorithmAreOffered() throws {
        let set = try Self.set()
        guard case .candidates(let named) = set.select(keyID: "ec-2", algorithm: .es256) else {
            Issue.record("ec-2 should be offered")
            return
        }
        #expect(named.map(\.keyID) == ["ec-2"])
        guard case .candidates(let all) = set.select(keyID: nil, algorithm: .es256) else {
            Issue.record("without kid every signing key should be offered")
            return
        }
        #expect(all.map(\.keyID) == ["ec-1", "ec-2"])
    }

    @Test func whyNoKeyIsOffered() throws {
        let set = try Self.set()
        guard case .unknownKeyID("gone") = set.select(keyID: "gone", algorithm: .es256) else {
            Issue.record("an unknown kid is unknownKeyID")
            return
        }
        guard case .keyIDForbidsAlgorithm("enc", .es256) = set.select(keyID: "enc", algorithm: .es256) else {
            Issue.record("an encryption key is never a signature key")
            return
        }
        guard case .keyIDForbidsAlgorithm("ec-1", .rs256) = set.select(keyID: "ec-1", algorithm: .rs256) else {
            Issue.record("an EC key never verifies RS256")
            return
        }
        guard case .noKeyForAlgorithm(.rs256) = set.select(keyID: nil, algorithm: .rs256) else {
            Issue.record("no kid and no RSA key is noKeyForAlgorithm")
            return
        }
    }
}
