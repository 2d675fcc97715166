import VersolaHTTP
import Foundation

/// The raw ID token of the held grant with its expiry: what a backend that validates ID
/// tokens (kube-apiserver's OIDC authenticator, for one) accepts as a Bearer credential.
public struct IDToken: Sendable, Hashable, CustomStringConvertible {
    /// The compact JWS. Secret-adjacent: never log it.
    public var value: String
    /// Its `exp` claim.
    public var expiresAt: Date

    /// Creates the value (the session makes them).
    public init(value: String, expiresAt: Date) {
        self.value = value
        self.expiresAt = expiresAt
    }

    /// Names the expiry, never the token.
    public var description: String { "IDToken(expires \(expiresAt))" }
}
