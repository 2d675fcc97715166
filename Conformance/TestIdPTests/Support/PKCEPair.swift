import VersolaCrypto
import VersolaJOSE

/// A PKCE verifier and its S256 challenge (RFC 7636 §4.1, §4.2).
struct PKCEPair: Sendable {
    /// The secret the client keeps for the code exchange.
    let verifier: String
    /// `BASE64URL(SHA256(verifier))`, sent on the authorization request.
    let challenge: String

    /// A fresh pair from 32 random bytes.
    init() {
        self.init(verifier: Base64URL.encode(SecureRandom.bytes(32)))
    }

    /// The pair for a given verifier.
    init(verifier: String) {
        self.verifier = verifier
        challenge = Base64URL.encode(SHA256.hash(Array(verifier.utf8)))
    }
}
