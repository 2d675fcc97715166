import Foundation

/// Stand-ins for providers the tests cannot reach, each built from that provider's public
/// documentation (A16, A17, A18). The README's provider notes give one `versola login` line per
/// provider; the command tests run exactly that line against the stand-in, with the real
/// provider's URLs pointed at it. What each imitates is said case by case; where the test
/// provider cannot imitate something, that is said too.
public enum TestStandIn: String, Sendable, Hashable, CaseIterable {
    /// Google, a "Desktop app" OAuth client (Google's "OAuth 2.0 for Mobile & Desktop Apps" and
    /// its OpenID Connect page): OpenID discovery at the issuer `https://accounts.google.com`;
    /// the client must send its (not confidential) secret at the token endpoint, by either
    /// method; a refresh token only with `access_type=offline`, and not rotated (a refresh
    /// answer carries none); `scopes_supported` without `offline_access`; no device endpoint in
    /// discovery; neither PAR, DPoP nor RFC 9207 `iss` advertised.
    case google
    /// Microsoft Entra ID, single tenant (the v2.0 endpoints): OpenID discovery appended to the
    /// issuer `https://login.microsoftonline.com/{tenant}/v2.0`; `offline_access` listed;
    /// rotating refresh tokens; public clients without a secret; no DPoP, no PAR.
    case entra
    /// Entra's multi-tenant `common` endpoint: its discovery document names the template
    /// `https://login.microsoftonline.com/{tenantid}/v2.0` as issuer, which no exact issuer
    /// check can accept (A1). Versola refuses it and says to use the tenant's own issuer.
    case entraCommon = "entra-common"
    /// Okta, a custom authorization server (`https://{org}.okta.com/oauth2/default`): OpenID
    /// discovery appended to the issuer (Okta also serves RFC 8414 metadata appended, which
    /// RFC 8414 §5 does not look for); `offline_access` listed; rotating refresh tokens; PAR and
    /// DPoP advertised.
    case okta
    /// Auth0 (`https://{tenant}.auth0.com/`): the issuer ends in `/` (its discovery document and
    /// ID tokens say so), and an exact issuer check (A1) needs it given that way; an API's
    /// access token needs `audience`: here a request without it is refused, where Auth0 itself
    /// issues an opaque token for UserInfo only (the stand-in makes the mistake visible);
    /// `offline_access` gives a rotating refresh token.
    case auth0
    /// Keycloak (`{base}/realms/{realm}`): OpenID discovery under the realm path; PAR, DPoP,
    /// device flow and `offline_access` advertised; a new refresh token with each refresh.
    case keycloak
    /// GitLab as an OpenID provider (`https://gitlab.com`): `scopes_supported` without
    /// `offline_access`, yet a refresh token with every code and a new one with each refresh.
    case gitlab
    /// GitHub, a GitHub App's user tokens (GitHub's "Generating a user access token for a
    /// GitHub App"): no metadata at all, so the endpoints are given; the client secret is
    /// required; answers are form-encoded unless `Accept: application/json`, and errors come
    /// with status 200; no OpenID Connect (no ID token); expiring user tokens with rotating
    /// refresh tokens; its API refuses requests without `User-Agent`.
    case github
    /// GitHub, an OAuth app (GitHub's "Authorizing OAuth apps"): as ``github``, but the token
    /// endpoint answers `access_token`, `token_type` and `scope` alone: no refresh token, no
    /// `expires_in` (the token lasts until it is revoked).
    case githubOAuthApp = "github-oauth-app"
    /// Dex with a static client (Dex's "Configuration: static clients"): OpenID discovery
    /// under `/dex`; the client has a secret, sent by HTTP Basic; `offline_access` listed;
    /// rotating refresh tokens; device flow.
    case dex
    /// A plain OAuth 2.0 authorization server (an API gateway, an MCP server's): RFC 8414
    /// metadata only, inserted before the issuer's path; no `openid`, no ID token; rotating
    /// refresh tokens with `offline_access`.
    case oauthServer = "rfc8414"

    /// The client id the stand-in registers, and its secret when it has one.
    public static let clientID = "versola-standin"
    /// The secret of the stand-ins whose clients have one (a test credential).
    public static let clientSecret = "standin-secret-0123"

    /// The issuer the README's line names: the real provider's (placeholders as the README shows them).
    public var realIssuer: String {
        switch self {
        case .google: "https://accounts.google.com"
        case .entra: "https://login.microsoftonline.com/TENANT-ID/v2.0"
        case .entraCommon: "https://login.microsoftonline.com/common/v2.0"
        case .okta: "https://ORG.okta.com/oauth2/default"
        case .auth0: "https://TENANT.auth0.com/"
        case .keycloak: "https://keycloak.example.com/realms/REALM"
        case .gitlab: "https://gitlab.com"
        case .github, .githubOAuthApp: "https://github.com"
        case .dex: "https://dex.example.com/dex"
        case .oauthServer: "https://auth.example.com/tenant"
        }
    }

    /// The path of the stand-in's issuer: the real one's.
    public var issuerPath: String {
        guard let schemeEnd = realIssuer.range(of: "://"),
            let slash = realIssuer[schemeEnd.upperBound...].firstIndex(of: "/")
        else { return "" }
        return String(realIssuer[slash...])
    }

    /// Real endpoint URLs in the README's line that are not under the issuer, and the stand-in
    /// endpoint each stands for.
    public var endpointURLs: [String: TestEndpoint] {
        switch self {
        case .github, .githubOAuthApp:
            [
                "https://github.com/login/oauth/authorize": .authorize,
                "https://github.com/login/oauth/access_token": .token,
                "https://github.com/login/device/code": .deviceAuthorization,
                "https://api.github.com/user": .userinfo,
            ]
        default: [:]
        }
    }

    /// A URL of the README's line as it points at the stand-in whose issuer is `issuer`: the
    /// real issuer's prefix becomes the stand-in's, and an endpoint of ``endpointURLs`` the
    /// stand-in's endpoint; any other text is left as it is.
    public func pointed(_ text: String, atIssuer issuer: String) -> String {
        var text = text
        for (real, endpoint) in endpointURLs.sorted(by: { $0.key.count > $1.key.count }) {
            let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
            text = text.replacingOccurrences(of: real, with: base + endpoint.path)
        }
        if text.hasPrefix(realIssuer) { return issuer + text.dropFirst(realIssuer.count) }
        if let equals = text.firstIndex(of: "="), text[text.index(after: equals)...].hasPrefix(realIssuer) {
            return String(text[...equals]) + issuer + text[text.index(after: equals)...].dropFirst(realIssuer.count)
        }
        return text
    }

    /// Whether the provider's client must send a secret.
    public var requiresSecret: Bool {
        switch self {
        case .google, .github, .githubOAuthApp, .dex: true
        default: false
        }
    }

    /// Whether a login there brings a refresh token (given the README's line).
    public var issuesRefreshTokens: Bool { self != .entraCommon && self != .githubOAuthApp }

    /// The provider's configuration.
    public var configuration: TestProviderConfiguration {
        var configuration = TestProviderConfiguration()
        configuration.autoLogin = true
        configuration.clients = [
            TestClient(id: Self.clientID, secret: requiresSecret ? Self.clientSecret : nil)
        ]
        configuration.advertiseDPoP = false
        configuration.advertisePushedAuthorizationRequests = false
        configuration.advertiseIssuerParameter = false
        switch self {
        case .google:
            configuration.tokenEndpointAuthMethods = ["client_secret_post", "client_secret_basic"]
            configuration.refreshTokenParameter = "access_type=offline"
            configuration.rotateRefreshTokens = false
            configuration.advertiseOfflineAccess = false
            configuration.advertiseDeviceAuthorization = false
            configuration.codeChallengeMethodsSupported = ["plain", "S256"]
        case .entra, .entraCommon:
            if self == .entraCommon {
                configuration.publishedIssuer = "https://login.microsoftonline.com/{tenantid}/v2.0"
            }
        case .okta:
            configuration.advertiseDPoP = true
            configuration.advertisePushedAuthorizationRequests = true
        case .auth0:
            configuration.requiredAuthorizationParameters = ["audience"]
        case .keycloak:
            configuration.advertiseDPoP = true
            configuration.advertisePushedAuthorizationRequests = true
            configuration.advertiseIssuerParameter = true
        case .gitlab:
            configuration.advertiseOfflineAccess = false
        case .github, .githubOAuthApp:
            configuration.metadata = .none
            configuration.requireOpenIDScope = false
            configuration.tokenEndpointAuthMethods = ["client_secret_post"]
            configuration.formEncodedUnlessJSONAccepted = true
            configuration.tokenErrorsWithStatus200 = true
            configuration.requireUserAgent = true
            configuration.accessTokenLifetime = 28_800
            if self == .githubOAuthApp {
                configuration.issueRefreshTokens = false
                configuration.accessTokensNeverExpire = true
            }
        case .dex:
            configuration.tokenEndpointAuthMethods = ["client_secret_basic", "client_secret_post"]
        case .oauthServer:
            configuration.metadata = .oauthAuthorizationServer
            configuration.requireOpenIDScope = false
            configuration.scopesSupported = ["read", "write", "offline_access"]
        }
        return configuration
    }
}
