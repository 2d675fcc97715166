import Foundation
import VersolaCrypto

/// A client the provider knows: a public client (no secret), as native apps are, or with a
/// `secret` a confidential one (for peers such as oidc-agent that always authenticate).
public struct TestClient: Sendable, Hashable {
    /// The `client_id`.
    public var id: String
    /// The client secret (a test credential): when set, the token endpoint requires it, by
    /// HTTP Basic (`client_secret_basic`) or in the form (`client_secret_post`).
    public var secret: String?
    /// Redirect URIs registered exactly.
    public var redirectURIs: [String]
    /// Whether any loopback redirect `http://127.0.0.1:ANY/path` (or `[::1]`) is accepted
    /// for a registered path, as RFC 8252 §7.3 asks of providers. False makes the
    /// provider match the port too, as some real providers do.
    public var allowsAnyLoopbackPort: Bool
    /// The algorithm of this client's ID tokens (RS256 or ES256).
    public var idTokenAlgorithm: SignatureAlgorithm
    /// Whether the client may have refresh tokens (a registration without `refresh_token`
    /// among its grant types may not).
    public var refreshAllowed = true
    /// Whether a private-use scheme redirect (RFC 8252 §7.1, e.g. `com.example.app:/callback`)
    /// is accepted on a registered path, as desktop apps register them (L7).
    public var allowsPrivateUseRedirects = true

    /// Creates a client.
    public init(
        id: String, redirectURIs: [String] = ["http://127.0.0.1/callback", "http://[::1]/callback"],
        allowsAnyLoopbackPort: Bool = true, idTokenAlgorithm: SignatureAlgorithm = .rs256, secret: String? = nil
    ) {
        self.id = id
        self.secret = secret
        self.redirectURIs = redirectURIs
        self.allowsAnyLoopbackPort = allowsAnyLoopbackPort
        self.idTokenAlgorithm = idTokenAlgorithm
    }
}

/// The one person who can sign in.
public struct TestUser: Sendable, Hashable {
    /// The stable subject identifier (`sub`).
    public var subject: String
    /// The login name typed into the form.
    public var username: String
    /// The password typed into the form (a test credential, not a secret).
    public var password: String
    /// The display name (`name`).
    public var name: String
    /// The e-mail address (`email`).
    public var email: String

    /// Creates a user.
    public init(
        subject: String = "248289761001", username: String = "alice", password: String = "wonderland",
        name: String = "Alice Example", email: String = "alice@example.test"
    ) {
        self.subject = subject
        self.username = username
        self.password = password
        self.name = name
        self.email = email
    }
}

/// Which metadata a provider publishes (A16).
public enum TestMetadataDocument: String, Sendable, Hashable, CaseIterable {
    /// OpenID Connect discovery, appended to the issuer (`{issuer}/.well-known/openid-configuration`).
    case openIDConfiguration
    /// RFC 8414 only, inserted before the issuer's path
    /// (`/.well-known/oauth-authorization-server{path}`).
    case oauthAuthorizationServer
    /// None: clients must be given the endpoints.
    case none
}

/// How the provider behaves when no fault is armed. The defaults are a strict,
/// standards-following provider that advertises everything Versola can use.
public struct TestProviderConfiguration: Sendable {
    /// Known clients.
    public var clients: [TestClient] = [
        TestClient(id: "versola-test"), TestClient(id: "versola-test-es256", idTokenAlgorithm: .es256),
    ]
    /// The test user.
    public var user = TestUser()
    /// Log the user in without showing a form, so any user agent that follows redirects
    /// completes a login.
    public var autoLogin = false
    /// Refuse authorization requests that were not pushed (PAR required).
    public var requirePushedAuthorizationRequests = false
    /// Advertise the PAR endpoint in discovery.
    public var advertisePushedAuthorizationRequests = true
    /// Advertise DPoP signing algorithms in discovery (`dpop_signing_alg_values_supported`);
    /// false omits the member, as most providers do.
    public var advertiseDPoP = true
    /// List `offline_access` in `scopes_supported`; false omits it from the list (and the
    /// provider then ignores the scope).
    public var advertiseOfflineAccess = true
    /// Refuse a request for `offline_access` without `prompt=consent` (OIDC Core §11), the
    /// way pyoidc-based providers do: `invalid_request` "consent in prompt" on the redirect.
    public var requireConsentForOfflineAccess = false
    /// `response_types_supported` as advertised; a list without `code` describes a provider
    /// this client cannot use (the provider still serves the code flow if asked).
    public var responseTypesSupported = ["code"]
    /// `code_challenge_methods_supported` as advertised; nil omits the member (the provider
    /// still accepts only S256).
    public var codeChallengeMethodsSupported: [String]? = ["S256"]
    /// `id_token_signing_alg_values_supported` as advertised (ID tokens are still signed with
    /// the provider's RS256 or ES256 key).
    public var idTokenSigningAlgorithmsSupported = ["RS256", "ES256"]
    /// Require every token request to carry a DPoP proof.
    public var requireDPoP = false
    /// Require the authorization server's nonce in DPoP proofs (`use_dpop_nonce`).
    public var requireDPoPNonce = false
    /// Require the resource server's nonce in DPoP proofs at the resource.
    public var resourceRequiresDPoPNonce = false
    /// Advertise `authorization_response_iss_parameter_supported` (RFC 9207).
    public var advertiseIssuerParameter = true
    /// Issue refresh tokens.
    public var issueRefreshTokens = true
    /// Issue a new ID token with every refresh (many providers do not).
    public var issueIDTokenOnRefresh = true
    /// Issue access tokens as signed JWTs (RFC 9068) carrying `exp`, instead of opaque values.
    public var jwtAccessTokens = false
    /// Access token lifetime, seconds.
    public var accessTokenLifetime: Int = 300
    /// Leave `expires_in` out of token answers, the token never expiring at the provider: what
    /// GitHub documents for OAuth apps (user tokens that do not expire and come with no refresh
    /// token, the answer carrying only `access_token`, `token_type` and `scope`).
    public var accessTokensNeverExpire = false
    /// ID token lifetime, seconds.
    public var idTokenLifetime: Int = 600
    /// Authorization code lifetime, seconds.
    public var codeLifetime: Int = 60
    /// Lifetime of a pushed request's `request_uri`, seconds.
    public var pushedRequestLifetime: Int = 90
    /// How far a DPoP proof's `iat` may be from the provider's clock, seconds.
    public var dpopProofWindow: Int = 60
    /// Advertise the device authorization endpoint (RFC 8628) and its grant in discovery; the
    /// provider serves the device flow either way.
    public var advertiseDeviceAuthorization = true
    /// Device code lifetime (`expires_in`), seconds.
    public var deviceCodeLifetime: Int = 600
    /// The poll `interval` the device authorization answer names, seconds; nil omits it (the
    /// client then waits 5 s, RFC 8628 §3.2).
    public var deviceInterval: Int? = 5
    /// The shortest spacing of polls the provider accepts before it answers `slow_down`,
    /// seconds; nil for the advertised interval (5 when none is advertised). Larger than the
    /// advertised one, it makes a provider that asks a client to slow down.
    public var deviceEnforcedInterval: Int?
    /// Include `verification_uri_complete` (the page with the user code in it) in the answer.
    public var deviceVerificationURIComplete = true
    /// The `acr` the resource demands (step-up) when the token's `acr` differs; nil for none.
    public var resourceRequiredACR: String?

    // MARK: Provider shapes (the stand-ins of TestStandIn)

    /// The `issuer` the metadata names, when it is not the provider's own (Entra's `common`
    /// endpoint names a template); nil for the issuer itself.
    public var publishedIssuer: String?
    /// Which metadata document the provider publishes, and where (A16).
    public var metadata = TestMetadataDocument.openIDConfiguration
    /// Refuse an authorization request without `openid` (an OpenID provider); false makes a
    /// plain OAuth 2.0 server, which issues an ID token only when `openid` is asked for.
    public var requireOpenIDScope = true
    /// `scopes_supported` as advertised; nil for the default list.
    public var scopesSupported: [String]?
    /// `token_endpoint_auth_methods_supported` as advertised.
    public var tokenEndpointAuthMethods = ["none"]
    /// `NAME=VALUE` the authorization request must carry for the code exchange to issue a
    /// refresh token (Google's `access_type=offline`); nil issues one whenever refresh tokens are on.
    public var refreshTokenParameter: String?
    /// Authorization parameters a request must carry (Auth0's `audience` for an API); a request
    /// without one is refused with `invalid_request` on the redirect.
    public var requiredAuthorizationParameters: [String] = []
    /// Rotate refresh tokens on use (a new one each refresh, the old one spent); false keeps
    /// the same one and sends none back (Google).
    public var rotateRefreshTokens = true
    /// Answer the token endpoint form-encoded unless the request's `Accept` asks for JSON (GitHub).
    public var formEncodedUnlessJSONAccepted = false
    /// Report token endpoint errors with status 200 (GitHub).
    public var tokenErrorsWithStatus200 = false
    /// Refuse resource and UserInfo requests without a `User-Agent` (403, as GitHub's API does).
    public var requireUserAgent = false

    // MARK: Protected resources (RFC 9728, RFC 8707, RFC 7591; the MCP authorization rules)

    /// Paths on the resource server's origin that are protected resources with RFC 9728
    /// metadata at `/.well-known/oauth-protected-resource{path}`; a request without a token
    /// gets `WWW-Authenticate: Bearer resource_metadata=…`. Empty: only `/resource`, without metadata.
    public var protectedResourcePaths: [String] = []
    /// Scopes a protected resource's metadata lists and its challenge names.
    public var protectedResourceScopes = ["tools:read", "offline_access"]
    /// Where the protected resources' metadata is served (the shapes MCP servers come in).
    public var protectedResourceMetadata = TestResourceMetadataLocation.pathInserted
    /// Name the metadata's location in the 401 (`resource_metadata`); false leaves the client
    /// to the well-known locations (MCP conformance `auth/metadata-var1`, `auth/metadata-var2`).
    public var challengeNamesResourceMetadata = true
    /// Name the scopes in the 401 (`scope`); false leaves the client to `scopes_supported`
    /// (MCP conformance `auth/scope-from-scopes-supported`).
    public var challengeNamesScope = true
    /// The `resource` the metadata names instead of the resource's own: a document planted for
    /// another resource (MCP conformance `auth/resource-mismatch`).
    public var protectedResourceMetadataNames: String?
    /// The authorization servers the metadata names instead of this provider: a resource that
    /// moved to another server (MCP conformance `auth/authorization-server-migration`, SEP-2352).
    public var protectedResourceAuthorizationServers: [String]?
    /// Scopes a token must hold to be served: one without them gets 403 `insufficient_scope`
    /// naming them (RFC 6750 §3.1; an MCP server's scope step-up, MCP conformance `auth/scope-step-up`).
    public var protectedResourceRequiredScopes: [String] = []
    /// The status of that refusal: 403 as RFC 6750 §3.1 says, or 401 as some servers answer
    /// a token that lacks scope (A20 takes both).
    public var protectedResourceInsufficientScopeStatus = 403
    /// Take client ID metadata documents (`client_id_metadata_document_supported`): a client id
    /// that is an http(s) URL is fetched at the authorization request, and its `redirect_uris`
    /// (any loopback port) become the client's, as the 2026-07-28 MCP revision prefers to
    /// registration (MCP conformance `auth/basic-cimd`).
    public var clientIDMetadataDocuments = false
    /// Give every registered client a secret, whatever it asked for, to be sent by the first of
    /// ``tokenEndpointAuthMethods`` (MCP conformance `auth/token-endpoint-auth-basic`, `-post`).
    public var registrationIssuesSecret = false
    /// Answer every token at a protected resource 403 `insufficient_scope`, whatever scopes it
    /// holds (MCP conformance `auth/scope-retry-limit`).
    public var protectedResourceNeverSatisfied = false
    /// Offer RFC 7591 dynamic registration (`registration_endpoint`): a client that does not ask
    /// for `token_endpoint_auth_method: none` gets a secret, one that does not ask for
    /// `refresh_token` gets none, and redirect URIs are matched exactly, port included.
    public var dynamicRegistration = false
    /// Require `resource` (RFC 8707) in the authorization request and every token request, naming
    /// one of the protected resources; tokens are bound to it and accepted only there.
    public var requireResourceIndicator = false

    /// The defaults.
    public init() {}

    func client(_ id: String?) -> TestClient? {
        guard let id else { return nil }
        return clients.first { $0.id == id }
    }
}

/// Where a protected resource's metadata (RFC 9728) is, as the MCP servers a client meets
/// publish it.
public enum TestResourceMetadataLocation: Sendable, Hashable {
    /// `/.well-known/oauth-protected-resource{path}`, naming the resource itself (RFC 9728 §3.1;
    /// MCP conformance `auth/metadata-default`).
    case pathInserted
    /// `/.well-known/oauth-protected-resource` at the root, naming the origin as the resource:
    /// an MCP server as the Python SDK serves and accepts it (MCP conformance `auth/metadata-var2`).
    case root
    /// Only at this location, given in the 401 alone: a path on the resource's origin or an
    /// absolute URL elsewhere (MCP conformance `auth/metadata-var3`).
    case custom(String)
    /// None at all: the resource's origin is its authorization server, as the 2025-03-26 MCP
    /// rules had it (MCP conformance `auth/2025-03-26-oauth-metadata-backcompat` and
    /// `auth/2025-03-26-oauth-endpoint-fallback`).
    case none
}
