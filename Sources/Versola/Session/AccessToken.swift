import VersolaHTTP
import Foundation

/// An access token with what a caller needs to use and cache it.
public struct AccessToken: Sendable, Hashable, CustomStringConvertible {
    /// The token. Secret.
    public var value: String
    /// How it is presented: `Bearer`, or `DPoP` with a proof per request.
    public var tokenType: TokenType
    /// When it expires: from the provider's `expires_in` when it gave one; nil when unknown.
    public var expiresAt: Date?
    /// Whether the session can renew it without a person (it holds a refresh token).
    public var renewable: Bool

    /// Names the type and expiry, never the value.
    public var description: String {
        "AccessToken(\(tokenType), expires \(expiresAt.map { "\($0)" } ?? "unknown"), renewable: \(renewable))"
    }
}

extension HeldGrant {
    /// The held access token as callers see it (its grant's type and expiry); nil when the
    /// grant's access token is not held.
    var accessToken: AccessToken? {
        token.map { token in
            AccessToken(
                value: token.value, tokenType: grant.tokenType, expiresAt: grant.expiresAt ?? token.expiration,
                renewable: grant.refreshToken != nil)
        }
    }
}
