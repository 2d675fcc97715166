import VersolaHTTP
import Foundation

/// An installed application's client secret (RFC 8252 §8.5, A17): shipped with the app, so not
/// confidential, but some providers insist on it (Google's desktop clients, Dex static clients).
///
/// It is still kept out of every text: `description` and `debugDescription` never show it, and
/// the engine sends it only to the token, PAR, device authorization and revocation endpoints.
///
/// ```swift
/// var configuration = ClientConfiguration(issuer: "https://accounts.google.com", clientID: "123.apps.googleusercontent.com")
/// configuration.clientSecret = ClientSecret("GOCSPX-example")
/// ```
public struct ClientSecret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret as the provider issued it.
    public let value: String

    /// Wraps a secret.
    public init(_ value: String) {
        self.value = value
    }

    /// Never the secret.
    public var description: String { "ClientSecret(redacted)" }

    /// Never the secret.
    public var debugDescription: String { description }
}
