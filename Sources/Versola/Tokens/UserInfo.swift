import VersolaHTTP
import VersolaJOSE

/// The claims the UserInfo endpoint returned (OIDC Core §5.3.2), already checked against the
/// ID token's `sub` (A8). A grant without an ID token (a plain OAuth 2.0 server, A16) has no
/// `sub` to check against: its endpoint (an API's "who am I", such as GitHub's `/user`) may
/// then answer without `sub`.
public struct UserInfo: Sendable, Hashable, CustomStringConvertible {
    /// The person's identifier at the issuer (`sub`), equal to the ID token's; nil only when
    /// the grant has no ID token and the answer carries no `sub`.
    public let subject: String?
    /// Every claim returned (strings are redacted when printed).
    public let claims: JSONObject

    /// Creates the value from checked claims.
    init(subject: String?, claims: JSONObject) {
        self.subject = subject
        self.claims = claims
    }

    /// The person's display name, when present (`name`).
    public var name: String? { claims["name"]?.string }
    /// The person's e-mail address, when present (`email`).
    public var email: String? { claims["email"]?.string }
    /// The name the person prefers to be called by, when present (`preferred_username`).
    public var preferredUsername: String? { claims["preferred_username"]?.string }

    /// The subject and the claim names.
    public var description: String {
        "UserInfo(sub: \(subject ?? "none"), claims: \(claims.names.joined(separator: ", ")))"
    }
}
