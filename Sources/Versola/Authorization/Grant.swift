import VersolaHTTP
import Foundation

/// What a successful authorization leaves: the tokens, the validated identity and the DPoP
/// key the tokens are bound to. Its `description` shows no token and no key.
public struct Grant: Sendable, Hashable, CustomStringConvertible {
    /// The access token. Secret; memory only (P4).
    public var accessToken: String
    /// How the access token is presented: `Bearer`, or `DPoP` with a proof per request.
    public var tokenType: TokenType
    /// When the access token expires by the local clock (now + `expires_in` at minting), if known.
    public var expiresAt: Date?
    /// The refresh token, when the provider issued one. Secret.
    public var refreshToken: String?
    /// The raw ID token (kept for `id_token_hint` at logout), when `openid` was asked for;
    /// nil at a plain OAuth 2.0 server (A16).
    public var idToken: String?
    /// The validated ID token claims, when there is an ID token: nil at a plain OAuth 2.0
    /// server, where UserInfo or the application says who signed in (A16).
    public var claims: IDTokenClaims?
    /// The scope granted.
    public var scope: String?
    /// The DPoP key the grant's tokens are bound to (D1), when DPoP was used. Secret; stored
    /// encrypted (P5) and destroyed with the grant (P6).
    public var dpopKey: DPoPKey?

    /// Creates a grant (the engine makes them; a session restores them from storage).
    public init(
        accessToken: String, tokenType: TokenType, expiresAt: Date? = nil, refreshToken: String? = nil,
        idToken: String?, claims: IDTokenClaims?, scope: String? = nil, dpopKey: DPoPKey? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.claims = claims
        self.scope = scope
        self.dpopKey = dpopKey
    }

    /// What the session's record keeps of the access token: all of it when the grant has no
    /// refresh token, being then its only credential (P13); nothing otherwise (P4).
    var storedAccessToken: StoredAccessToken? {
        guard refreshToken == nil, !accessToken.isEmpty else { return nil }
        return StoredAccessToken(value: accessToken, expiresAt: expiresAt, scope: scope)
    }

    /// The token logout revokes (A9, P13): the refresh token, else the access token of a grant
    /// that has none; nil when there is neither.
    var revocableToken: String? {
        refreshToken ?? (accessToken.isEmpty ? nil : accessToken)
    }

    /// The key that accompanies the access token at resources: the DPoP key when the token
    /// is DPoP-bound, nil for a Bearer token.
    var resourceProofKey: DPoPKey? {
        tokenType == .dpop ? dpopKey : nil
    }

    /// The token type, subject and which secrets are present; never a token or key.
    public var description: String {
        "Grant(\(tokenType.rawValue), sub \(claims?.subject ?? "none (no ID token)"), refresh token: \(refreshToken != nil), "
            + "DPoP key: \(dpopKey != nil))"
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
