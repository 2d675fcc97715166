import Foundation

/// What a successful authorization leaves: the tokens and the validated identity.
/// Its `description` shows no token.
public struct Grant: Sendable, Hashable, CustomStringConvertible {
    /// The access token. Secret; memory only (P4).
    public var accessToken: String
    /// `Bearer` or `DPoP`.
    public var tokenType: TokenType
    /// When the access token expires by the local clock (now + `expires_in` at minting), if known.
    public var expiresAt: Date?
    /// The refresh token, when the provider issued one. Secret.
    public var refreshToken: String?
    /// The raw ID token (kept for `id_token_hint` at logout).
    public var idToken: String
    /// The validated ID token claims.
    public var claims: IDTokenClaims
    /// The scope granted.
    public var scope: String?

    public var description: String {
        "Grant(\(tokenType.rawValue), sub \(claims.subject), refresh token: \(refreshToken != nil))"
    }
}

/// What the person is shown while the engine waits for the browser leg.
public struct AuthorizationPrompt: Sendable, Hashable {
    /// The URL to open (it carries no secret: PKCE sends only the challenge).
    public var url: String
    /// Whether a browser was started; when false, show the URL to open elsewhere.
    public var browserOpened: Bool
    /// The redirect URI the listener waits on.
    public var redirectURI: String
}
