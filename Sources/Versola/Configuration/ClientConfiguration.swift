import VersolaHTTP
import Foundation
import VersolaCrypto

/// Everything the engine needs to know about one client registration at one provider.
/// Validated as a whole before any request (R2).
///
/// ```swift
/// var configuration = ClientConfiguration(issuer: "https://login.example.com", clientID: "my-cli")
/// configuration.scopes = ["openid", "profile", "offline_access"]
/// try configuration.validate()
/// ```
public struct ClientConfiguration: Sendable, Hashable {
    /// The issuer identifier, exactly as the provider states it (A1). `https`, or `http`
    /// only on a loopback host.
    public var issuer: String
    /// The public client's `client_id`.
    public var clientID: String
    /// The scopes to request, sent exactly as given once set (A12). Until set they are the
    /// defaults, ``defaultScopes``, which a login adapts to the provider: `openid` only where
    /// the provider speaks OpenID Connect, `offline_access` only where it is listed or no list
    /// is published.
    public var scopes: [String] {
        get { explicitScopes ?? Self.defaultScopes }
        set { explicitScopes = newValue }
    }
    /// The scopes the application set, or nil for the defaults.
    private var explicitScopes: [String]?
    /// An installed application's client secret (A17), nil for a public client (the default).
    public var clientSecret: ClientSecret?
    /// Endpoints that replace the metadata's, or stand in for metadata the provider does not
    /// publish (A16, A18).
    public var endpoints = EndpointOverrides()
    /// The protected resource the tokens are for (RFC 8707, A19): sent as `resource` in the
    /// authorization request (and PAR) and in every token request, so each token is bound to
    /// it. ``ResourceAuthorization`` sets it; nil (the default) sends none.
    public var resource: String?
    /// Parameters added to every authorization request (A18), such as Google's
    /// `access_type=offline` or Auth0's `audience`; a name the engine sets itself is refused.
    public var extraAuthorizationParameters: [String: String] = [:]
    /// Where the browser sends the person back.
    public var redirect: LoopbackRedirect
    /// A private-use scheme redirect (RFC 8252 §7.1, L7) used instead of ``redirect``'s
    /// loopback listener when set; nil (the default) keeps the loopback redirect.
    public var privateUseRedirect: PrivateUseRedirect? = nil
    /// When tokens are bound to a DPoP key (RFC 9449, A11): `.auto` by default.
    public var dpop: DPoPMode
    /// Accept a Bearer token when DPoP was asked for (D5); off by default.
    public var allowsBearerFallback: Bool
    /// When to push the authorization request (RFC 9126).
    public var pushedAuthorization: PushedAuthorizationMode
    /// Retry limits per operation.
    public var retryPolicy: RetryPolicy
    /// Timeouts, size bounds and an optional private CA file.
    public var transport: TransportOptions
    /// How far token times may be off the local clock (A7). At most 5 minutes.
    public var clockTolerance: Duration
    /// ID token signature algorithms accepted (A7); never `none` nor HMAC.
    public var idTokenAlgorithms: Set<SignatureAlgorithm>
    /// The provider workarounds in force (all on by default); see ``ProviderQuirks``.
    public var providerQuirks = ProviderQuirks()
    /// Where the provider sends the browser after RP-initiated logout (A15), registered at
    /// the provider; nil (the default) sends no `post_logout_redirect_uri`.
    public var postLogoutRedirectURI: String?

    /// The largest clock tolerance accepted.
    public static let maximumClockTolerance: Duration = .seconds(300)

    /// Creates a configuration with Versola's defaults.
    public init(issuer: String, clientID: String) {
        self.issuer = issuer
        self.clientID = clientID
        self.explicitScopes = nil
        self.redirect = LoopbackRedirect()
        self.dpop = .auto
        self.allowsBearerFallback = false
        self.pushedAuthorization = .whenAdvertised
        self.retryPolicy = RetryPolicy()
        self.transport = TransportOptions()
        self.clockTolerance = .seconds(60)
        self.idTokenAlgorithms = [.rs256, .rs384, .rs512, .ps256, .ps384, .ps512, .es256, .es384, .es512, .edDSA]
        self.postLogoutRedirectURI = nil
    }

    /// Whether DPoP may be used at all (the mode is not `.off`). Whether a login does use it
    /// depends on the provider in `.auto` mode: ask ``OpenIDClient/resolvedDPoP()``.
    /// Setting it picks `.require` (true) or `.off` (false).
    public var usesDPoP: Bool {
        get { dpop != .off }
        set { dpop = newValue ? .require : .off }
    }

    /// The scopes a login asks for when neither the caller nor the configuration chose any:
    /// `openid` and `offline_access`, each kept only where the provider takes it (A12, A16).
    public static let defaultScopes = ["openid", "offline_access"]

    /// Whether the scopes are still the defaults (nothing set them).
    public var usesDefaultScopes: Bool { explicitScopes == nil }

    /// The scopes as sent when nothing adapted them: space-separated, in the order given.
    public var requestedScope: String {
        scopes.joined(separator: " ")
    }

    /// Checks every setting (R2, A1).
    /// - Throws: `.configuration(.invalidConfiguration)` naming the first bad setting.
    public func validate() throws(VersolaError) {
        guard let url = URL(string: issuer), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            url.query == nil, url.fragment == nil
        else {
            throw .configuration(.invalidConfiguration("issuer \(issuer) is not an absolute URL without query or fragment"))
        }
        guard scheme == "https" || (scheme == "http" && Origin(scheme: scheme, host: host)?.isLoopback == true) else {
            throw .configuration(.invalidConfiguration("issuer must use https (plain http only on loopback)"))
        }
        guard !clientID.isEmpty else { throw .configuration(.invalidConfiguration("client id is empty")) }
        try VersolaError.converting { () throws(HTTPFailure) in
            try retryPolicy.validate()
            try transport.validate()
        }
        guard clockTolerance >= .zero, clockTolerance <= Self.maximumClockTolerance else {
            throw .configuration(.invalidConfiguration("clock tolerance must be 0…300 s"))
        }
        guard !idTokenAlgorithms.isEmpty else {
            throw .configuration(.invalidConfiguration("no ID token algorithm is allowed"))
        }
        try redirect.validate()
        try endpoints.validate()
        if let resource { try ProtectedResourceMetadata.validateResource(resource) }
        if let clientSecret, clientSecret.value.isEmpty {
            throw .configuration(.invalidConfiguration("the client secret is empty"))
        }
        try AuthorizationParameters.validateExtra(extraAuthorizationParameters)
        if let postLogoutRedirectURI { try Self.validatePostLogoutRedirect(postLogoutRedirectURI) }
    }

    /// An absolute URL without fragment; plain `http` only on loopback (like the issuer).
    private static func validatePostLogoutRedirect(_ text: String) throws(VersolaError) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.fragment == nil,
            !text.contains("#")
        else {
            throw .configuration(.invalidConfiguration("post-logout redirect \(text) is not an absolute URL without fragment"))
        }
        if scheme == "http", url.host.flatMap({ Origin(scheme: scheme, host: $0)?.isLoopback }) != true {
            throw .configuration(.invalidConfiguration("post-logout redirect must use https (plain http only on loopback)"))
        }
    }
}

/// When tokens are bound to a DPoP key (RFC 9449, A11).
public enum DPoPMode: String, Sendable, Hashable, CaseIterable {
    /// DPoP exactly when the provider advertises ES256 in `dpop_signing_alg_values_supported`;
    /// Bearer tokens otherwise.
    case auto
    /// DPoP always: a provider that does not advertise ES256 proofs, or answers a DPoP request
    /// with a Bearer token, is `providerUnsupported` unless Bearer fallback is allowed (D5).
    case require
    /// Never DPoP: Bearer tokens.
    case off
}

/// When the authorization request is pushed (RFC 9126).
public enum PushedAuthorizationMode: String, Sendable, Hashable, CaseIterable {
    /// Push when the provider advertises a PAR endpoint (A3).
    case whenAdvertised
    /// Always push; a provider without PAR is `providerUnsupported`.
    case required
    /// Never push.
    case never
}

/// The loopback redirect of RFC 8252 §7.3: `http://127.0.0.1:{port}{path}`.
public struct LoopbackRedirect: Sendable, Hashable {
    /// Which loopback address to bind.
    public enum Address: String, Sendable, Hashable {
        /// The IPv4 loopback address, `127.0.0.1`.
        case ipv4
        /// The IPv6 loopback address, `[::1]`.
        case ipv6
    }

    /// The address to bind.
    public var address: Address
    /// The port to listen on: 0 for an ephemeral one (the default), or a fixed port for
    /// providers that match the redirect URI exactly, port included.
    public var port: UInt16
    /// The path the redirect arrives on.
    public var path: String

    /// Creates a redirect: `127.0.0.1`, an ephemeral port, `/callback`.
    public init(address: Address = .ipv4, port: UInt16 = 0, path: String = "/callback") {
        self.address = address
        self.port = port
        self.path = path
    }

    /// Checks the path.
    /// - Throws: `.configuration(.invalidConfiguration)`.
    public func validate() throws(VersolaError) {
        guard path.hasPrefix("/"), !path.contains("?"), !path.contains("#"), !path.contains(" ") else {
            throw .configuration(.invalidConfiguration("redirect path must start with / and have no query or fragment"))
        }
    }
}

extension ClientConfiguration {
    /// Starts the budget of one operation under this configuration's retry policy (R1).
    package func newBudget(clock: any VersolaClock) throws(VersolaError) -> OperationBudget {
        try VersolaError.converting { () throws(HTTPFailure) in try OperationBudget(policy: retryPolicy, clock: clock) }
    }
}
