import VersolaHTTP
import Foundation

/// The access token of a grant that has no refresh token, kept sealed in the record as the
/// session's only credential (P13): GitHub OAuth apps and many MCP servers issue nothing else,
/// and a session that kept it in memory only (P4) would end with the process that signed in.
///
/// It is written only for such a grant: a grant that can be renewed keeps its access token in
/// memory (P4). Its `description` names the expiry, never the value.
public struct StoredAccessToken: Sendable, Hashable, CustomStringConvertible {
    /// The token. Secret: it lives only inside the sealed record (P5).
    public var value: String
    /// When it expires by the wall clock (from `expires_in` at minting), or nil when the
    /// provider gave no lifetime: then it is served until a resource refuses it.
    public var expiresAt: Date?
    /// The scope granted with it, when the provider said.
    public var scope: String?

    /// Creates a stored access token.
    public init(value: String, expiresAt: Date?, scope: String? = nil) {
        self.value = value
        self.expiresAt = expiresAt
        self.scope = scope
    }

    /// The expiry, never the value.
    public var description: String {
        "StoredAccessToken(expires \(expiresAt.map { "\($0)" } ?? "never said"))"
    }
}
