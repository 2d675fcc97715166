import Foundation
import VersolaHTTP
import Synchronization
import VersolaCrypto
import VersolaJOSE

/// The EC P-256 key a grant's tokens are bound to (RFC 9449, D1): one fresh key per login,
/// kept with the grant, stored encrypted (P5) and destroyed with it (P6).
///
/// Two keys are equal when their RFC 7638 thumbprints are. The private scalar never appears
/// in a `description`; ``rawRepresentation`` is the secret to seal before storing.
///
/// ```swift
/// let key = try DPoPKey.generate()
/// print(key.thumbprint)                       // the `dpop_jkt` value (D4)
/// let sealed = seal(key.rawRepresentation)    // secret: encrypt before it leaves memory
/// let restored = try DPoPKey(rawRepresentation: unseal(sealed))
/// assert(restored == key)
/// ```
public struct DPoPKey: Sendable, Hashable, CustomStringConvertible {
    /// The private key that signs the proofs.
    let privateKey: P256PrivateKey
    /// The public key as a JWK (`kty`, `crv`, `x`, `y` only), the `jwk` of every proof header.
    public let publicJWK: JWK
    /// The RFC 7638 SHA-256 thumbprint of ``publicJWK``, base64url: the `dpop_jkt` (D4) and
    /// the `jkt` the provider binds tokens to.
    public let thumbprint: String
    /// The base64url protected header followed by `.`: the fixed start of every proof's
    /// signing input, built once per key.
    let signingInputPrefix: [UInt8]
    /// The SHA-256 state after ``signingInputPrefix``: each proof hashes only its claims.
    let signingInputPrefixHash: SHA256Prefix
    /// The `ath` of the access token proofs were last made for: a token is sent with many
    /// requests in its lifetime, and hashing it again for each proof is wasted work.
    let lastTokenHash = LastValueCache<String, String>()
    /// The `htu` of the URL proofs were last made for: an application sends many requests to
    /// one resource, and normalising its URL again for each proof is wasted work.
    let lastTargetURI = LastValueCache<URL, String>()

    /// Generates a fresh key from the system's secure random source.
    /// - Throws: `.configuration(.invalidConfiguration)` when the crypto library cannot make a key.
    public static func generate() throws(VersolaError) -> DPoPKey {
        let key: P256PrivateKey
        do { key = try P256PrivateKey() } catch {
            throw .configuration(.invalidConfiguration("no DPoP key could be generated: \(error)"))
        }
        return try DPoPKey(privateKey: key)
    }

    /// Wraps an existing P-256 private key.
    /// - Throws: `.configuration(.invalidConfiguration)` when its public key cannot be expressed as a JWK.
    public init(privateKey: P256PrivateKey) throws(VersolaError) {
        let jwk: JWK
        do {
            jwk = try JWK(material: .ec(curve: .p256, x: privateKey.publicKey.x, y: privateKey.publicKey.y))
        } catch {
            throw .configuration(.invalidConfiguration("the DPoP public key is unusable: \(error)"))
        }
        self.privateKey = privateKey
        self.publicJWK = jwk
        self.thumbprint = jwk.thumbprint()
        let header: JSONValue = ["typ": "dpop+jwt", "alg": "ES256", "jwk": jwk.jsonValue]
        var prefix = Array(Base64URL.encode(header.serializedBytes()).utf8)
        prefix.append(UInt8(ascii: "."))
        self.signingInputPrefix = prefix
        self.signingInputPrefixHash = SHA256Prefix(prefix)
    }

    /// Restores a key from the 32-byte private scalar ``rawRepresentation`` returned.
    /// - Throws: `.reauthenticate(.credentialsInvalidated)` when the bytes are not a P-256
    ///   private key (a stored secret that did not survive, E9).
    public init(rawRepresentation: [UInt8]) throws(VersolaError) {
        let key: P256PrivateKey
        do { key = try P256PrivateKey(rawRepresentation: rawRepresentation) } catch {
            throw .reauthenticate(.credentialsInvalidated)
        }
        try self.init(privateKey: key)
    }

    /// The 32-byte private scalar. A secret: seal it (P5) before it leaves memory.
    public var rawRepresentation: [UInt8] { privateKey.rawRepresentation }

    /// Whether two keys are the same key: equal thumbprints.
    public static func == (lhs: DPoPKey, rhs: DPoPKey) -> Bool {
        lhs.thumbprint == rhs.thumbprint
    }

    /// Hashes the thumbprint.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(thumbprint)
    }

    /// The thumbprint only (public: it is sent as `dpop_jkt`); never the private key.
    public var description: String { "DPoPKey(jkt \(thumbprint))" }
}
