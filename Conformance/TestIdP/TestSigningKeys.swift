import VersolaCrypto
import VersolaJOSE

/// The provider's ID-token keys: one RSA (RS256) and one EC P-256 (ES256) key of the
/// current generation, the previous generation's public keys while rotating, and a rogue
/// key that is never published (for the `unknownSigningKey` fault).
struct TestSigningKeys: Sendable {
    let generation: Int
    let rsa: RSAPrivateKey
    let ec: P256PrivateKey
    let rogue: P256PrivateKey
    let retired: [JWK]

    init(generation: Int, retired: [JWK] = []) throws(CryptoError) {
        self.generation = generation
        if generation == 1 {
            // Every provider of a process starts from the same first keys: an RSA key costs
            // tens to hundreds of milliseconds of CPU, and test runs start hundreds of
            // providers. Rotation always makes fresh keys.
            (rsa, ec, rogue) = try Self.firstGeneration.get()
        } else {
            rsa = try RSAPrivateKey(bits: 2048)
            ec = try P256PrivateKey()
            rogue = try P256PrivateKey()
        }
        self.retired = retired
    }

    private static let firstGeneration = Result { () throws(CryptoError) -> (RSAPrivateKey, P256PrivateKey, P256PrivateKey) in
        (try RSAPrivateKey(bits: 2048), try P256PrivateKey(), try P256PrivateKey())
    }

    var rsaKeyID: String { "rsa-\(generation)" }
    var ecKeyID: String { "ec-\(generation)" }

    /// The current public keys as JWKs.
    var currentPublicKeys: [JWK] {
        var keys: [JWK] = []
        if let key = try? JWK(
            material: .rsa(modulus: rsa.modulus, exponent: rsa.exponent), keyID: rsaKeyID, use: "sig", algorithm: "RS256")
        {
            keys.append(key)
        }
        if let key = try? JWK(
            material: .ec(curve: .p256, x: ec.publicKey.x, y: ec.publicKey.y), keyID: ecKeyID, use: "sig",
            algorithm: "ES256")
        {
            keys.append(key)
        }
        return keys
    }

    /// The JWKS document.
    var publishedSet: JSONValue {
        .object(["keys": .array((currentPublicKeys + retired).map(\.jsonValue))])
    }

    /// The next generation, keeping this one's public keys when asked.
    func rotated(retainPrevious: Bool) throws(CryptoError) -> TestSigningKeys {
        try TestSigningKeys(generation: generation + 1, retired: retainPrevious ? currentPublicKeys : [])
    }

    /// A signer and its key ID for `algorithm` (RS256 or ES256); the rogue key when `rogue`.
    func signer(for algorithm: SignatureAlgorithm, rogue useRogue: Bool) -> (JWSSigner, String) {
        if useRogue { return (.es256(rogue), "rogue-1") }
        switch algorithm {
        case .es256: return (.es256(ec), ecKeyID)
        default: return (.rsa(rsa, algorithm: .rs256), rsaKeyID)
        }
    }
}
