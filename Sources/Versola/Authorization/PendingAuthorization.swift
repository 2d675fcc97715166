import VersolaHTTP
import Foundation

/// An authorization request waiting for its redirect (P1): everything needed to validate
/// the redirect and exchange the code, even in another process after a restart.
///
/// It holds the PKCE verifier, a secret, so its `description` shows none of its values.
public struct PendingAuthorization: Sendable, Hashable, CustomStringConvertible {
    /// The `state` sent (E12).
    public var state: String
    /// The `nonce` sent, checked in the ID token (A7).
    public var nonce: String
    /// The PKCE verifier (A2). Secret.
    public var codeVerifier: String
    /// The redirect URI sent, repeated exactly in the code exchange (A6).
    public var redirectURI: String
    /// The issuer the request went to.
    public var issuer: String
    /// The client id.
    public var clientID: String
    /// The scope requested.
    public var scope: String
    /// The `acr_values` requested, when any.
    public var acrValues: [String]
    /// The `max_age` requested, when any.
    public var maxAge: Int?
    /// The RFC 7638 thumbprint of the DPoP key bound with `dpop_jkt` (D4), when DPoP is on.
    public var dpopThumbprint: String?
    /// When the request was made (it expires 10 minutes later, P2).
    public var createdAt: Date

    /// How long a pending request stays usable (P2).
    public static let lifetime: TimeInterval = 600

    /// Whether it is older than ``lifetime`` at `now`.
    public func isExpired(at now: Date) -> Bool {
        now.timeIntervalSince(createdAt) >= Self.lifetime || now < createdAt.addingTimeInterval(-300)
    }

    /// Creates a record.
    public init(
        state: String, nonce: String, codeVerifier: String, redirectURI: String, issuer: String, clientID: String,
        scope: String, acrValues: [String] = [], maxAge: Int? = nil, dpopThumbprint: String? = nil, createdAt: Date
    ) {
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.redirectURI = redirectURI
        self.issuer = issuer
        self.clientID = clientID
        self.scope = scope
        self.acrValues = acrValues
        self.maxAge = maxAge
        self.dpopThumbprint = dpopThumbprint
        self.createdAt = createdAt
    }

    public var description: String { "PendingAuthorization(issuer \(issuer), created \(createdAt))" }
}
