import VersolaHTTP
import VersolaCrypto
import VersolaJOSE

/// A PKCE pair (RFC 7636) with the `S256` method, the only one Versola sends (A2).
///
/// The verifier is 32 random bytes, base64url-encoded (43 characters); the challenge is
/// the base64url SHA-256 of the verifier's ASCII. Its `description` hides the verifier.
package struct PKCE: Sendable, Hashable, CustomStringConvertible {
    /// The secret the token request proves possession of.
    public let verifier: String
    /// The value sent with the authorization request.
    public let challenge: String
    /// Always `S256`.
    public let method = "S256"

    /// A fresh pair from `random`.
    public init(random: any RandomSource) {
        self.init(verifier: Base64URL.encode(random.bytes(32)))
    }

    /// The pair of a known verifier (RFC 7636 appendix B's example, a restored request).
    public init(verifier: String) {
        self.verifier = verifier
        self.challenge = Base64URL.encode(SHA256.hash(Array(verifier.utf8)))
    }

    public var description: String { "PKCE(S256, challenge \(challenge))" }
}
