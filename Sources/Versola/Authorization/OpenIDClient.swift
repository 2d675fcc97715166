import VersolaHTTP
import Foundation
import VersolaJOSE

/// The authorization engine for one client at one provider: discovery, PKCE, PAR, the
/// loopback browser leg, the code exchange and ID token validation (A1–A9, E9, E11, E12, L1),
/// the device authorization grant (A14, in `OpenIDClient+Device.swift`), with tokens bound to
/// a DPoP key per `configuration.dpop` (A11, D1–D5).
///
/// ```swift
/// let client = try OpenIDClient(configuration: ClientConfiguration(issuer: "https://login.example.com", clientID: "cli"))
/// let grant = try await client.login(present: { prompt in
///     print("Open \(prompt.url) to sign in")
/// })
/// print(grant.claims?.subject ?? "(no ID token)")
/// ```
public actor OpenIDClient {
    /// The validated configuration.
    public let configuration: ClientConfiguration
    /// The environment every request goes through.
    public let environment: EngineEnvironment
    /// The DPoP nonces learned from every response, per origin (D3). A session persists its
    /// ``DPoPNonceCache/snapshot()`` and passes a restored cache to the initializer.
    public nonisolated let dpopNonces: DPoPNonceCache
    private let browser: any BrowserLauncher
    let sender: EndpointSender
    let discovery: DiscoveryClient
    private var keys: JWKSCache?
    private var activeListener: (any RedirectReceiver)?
    /// Logins in progress, and whether the person cancelled before one had its listener.
    var loginsInProgress = 0
    var cancelRequested = false
    /// The polling of the device login in progress (A14), cancelled by ``cancelLogin()``.
    var activeDevicePoll: Task<Grant, any Error>?

    /// Creates the engine after validating the configuration (R2): nothing is sent before.
    /// - Parameters:
    ///   - configuration: the client registration and policies.
    ///   - environment: transport, clock and random source; the system's when nil. Every
    ///     request is sent with the configuration's ``ClientConfiguration/transport`` options,
    ///     whichever environment is given.
    ///   - browser: how the authorization URL is opened.
    ///   - dpopNonces: the DPoP nonce cache (a session passes one restored from storage).
    /// - Throws: `.configuration(.invalidConfiguration)`.
    public init(
        configuration: ClientConfiguration, environment: EngineEnvironment? = nil,
        browser: any BrowserLauncher = SystemBrowser(), dpopNonces: DPoPNonceCache = DPoPNonceCache()
    ) throws(VersolaError) {
        try configuration.validate()
        // The sender below gives every request the configuration's transport options.
        let environment = environment ?? .system()
        self.configuration = configuration
        self.environment = environment
        self.browser = browser
        self.dpopNonces = dpopNonces
        self.sender = EndpointSender(environment: environment, nonces: dpopNonces, options: configuration.transport)
        self.discovery = DiscoveryClient(configuration: configuration, sender: sender)
    }

    /// The provider's metadata, fetched once and cached (A1, R5).
    public func metadata() async throws(VersolaError) -> ProviderMetadata {
        try await discovery.metadata(budget: newBudget())
    }

    /// Whether a login with this configuration binds its tokens to a DPoP key (A11): in `.auto`
    /// mode exactly when the provider advertises ES256 in `dpop_signing_alg_values_supported`;
    /// in `.require` mode the same (a provider without it is refused by ``login(_:timeout:dpopKey:onPending:present:)``, unless
    /// Bearer fallback is allowed); never in `.off` mode. Reads the provider's metadata (cached).
    ///
    /// A caller that makes the DPoP key itself (to persist it with the pending request) asks
    /// this first: `let key = try await client.resolvedDPoP() ? try DPoPKey.generate() : nil`.
    public func resolvedDPoP() async throws(VersolaError) -> Bool {
        guard configuration.dpop != .off else { return false }
        return try await metadata().bindsDPoP(for: configuration)
    }

    /// Runs an interactive login: everything up to the browser, the browser leg, then the
    /// code exchange and ID token validation.
    ///
    /// `offline_access` is asked for only when the provider lists it in `scopes_supported` (or
    /// publishes no list), and then with `prompt=consent` unless `parameters.prompt` is set (A12).
    ///
    /// With DPoP (``resolvedDPoP()``), the login binds a new key: `dpop_jkt` in the authorization request, plain or
    /// pushed (D4); proofs on the push, the exchange and later requests; the grant carries
    /// the key. In `.require` mode a Bearer answer is `providerUnsupported` unless Bearer fallback is allowed (D5).
    /// - Parameters:
    ///   - parameters: extra authorization parameters (prompt, acr_values, …).
    ///   - timeout: how long the person has to finish in the browser.
    ///   - dpopKey: the key to bind, when the caller made (and persisted) it itself so a
    ///     restarted process can finish the login (P1, P2); a fresh one is made when nil.
    ///   - onPending: called with the pending request before the browser opens (P1), so it
    ///     can be persisted; when it throws, the login ends with that error and no browser opens.
    ///   - present: called once the browser was (or could not be) started; show the URL
    ///     when `browserOpened` is false (L1).
    /// - Returns: the grant.
    /// - Throws: a `VersolaError` of any category; a configuration error found before the
    ///   browser (discovery, an unsupported provider, a rejected push) never opens it.
    public func login(
        _ parameters: AuthorizationParameters = AuthorizationParameters(),
        timeout: Duration = .seconds(300),
        dpopKey: DPoPKey? = nil,
        onPending: (@Sendable (PendingAuthorization) async throws(VersolaError) -> Void)? = nil,
        present: (@Sendable (AuthorizationPrompt) async -> Void)? = nil
    ) async throws(VersolaError) -> Grant {
        loginsInProgress += 1
        defer {
            loginsInProgress -= 1
            if loginsInProgress == 0 { cancelRequested = false }
        }
        let before = try newBudget()
        let metadata = try await discovery.metadata(budget: before)
        try metadata.checkSupports(configuration)
        try await checkCooldown(metadata)
        var key: DPoPKey?
        if metadata.bindsDPoP(for: configuration) { key = if let dpopKey { dpopKey } else { try DPoPKey.generate() } }
        try AuthorizationParameters.validateExtra(parameters.extra)
        let parameters = metadata.authorizationParameters(parameters, for: configuration)
        let listener: any RedirectReceiver =
            if let privateUse = configuration.privateUseRedirect { PrivateUseRedirectReceiver(privateUse) } else {
                try LoopbackListener.start(configuration.redirect)
            }
        activeListener = listener
        defer {
            if activeListener === listener { activeListener = nil }
            Task { await listener.stop() }
        }
        let pending = newPendingAuthorization(redirectURI: listener.redirectURI, parameters: parameters, dpopKey: key)
        listener.expect(state: pending.state)
        let query = authorizationQuery(pending: pending, parameters: parameters)
        let url: String
        if metadata.usesPushedAuthorization(for: configuration), let endpoint = metadata.pushedAuthorizationRequestEndpoint {
            let requestURI = try await push(query, to: endpoint, metadata: metadata, budget: before, dpopKey: key)
            let pairs = PushedFrontChannel.pairs(clientID: configuration.clientID, requestURI: requestURI, pushed: query)
            url = Self.appending(pairs, to: metadata.authorizationEndpoint)
        } else {
            url = Self.appending(query, to: metadata.authorizationEndpoint)
        }
        try await onPending?(pending)
        // E7: a cancel that came while the request was being prepared opens no browser.
        if cancelRequested { throw .recoverable(.userCancelled) }
        let opened = await browser.open(url)
        await present?(AuthorizationPrompt(url: url, browserOpened: opened, redirectURI: listener.redirectURI))
        let redirect = try await listener.waitForRedirect(timeout: timeout, clock: environment.clock)
        activeListener = nil
        return try await complete(
            redirect, pending: pending, issuerParameterRequired: metadata.authorizationResponseIssParameterSupported,
            dpopKey: key)
    }

    /// Hands a redirect URL to the login in progress (pasted by the person, L2).
    /// - Returns: false when no login waits, it already has its redirect, or the URL is not
    ///   its response (see ``offerRedirect(_:)``).
    @discardableResult
    public func deliverRedirect(_ url: String) -> Bool {
        offerRedirect(url) == nil
    }

    /// Hands a redirect URL to the login in progress and says why it was not taken: a URL
    /// that is not this login's response (another `state`, A4) leaves the login waiting.
    /// - Returns: nil when the login took it.
    public func offerRedirect(_ url: String) -> RedirectRefusal? {
        guard let activeListener else { return .noLoginWaiting }
        return activeListener.offer(url)
    }

    /// Cancels the login in progress on the person's behalf (`userCancelled`, E7), also one
    /// still preparing its request (it then opens no browser) and a device login's polling
    /// (A14). Does nothing when no login runs or its redirect already arrived.
    public func cancelLogin() {
        if loginsInProgress > 0 { cancelRequested = true }
        activeListener?.cancel()
        activeDevicePoll?.cancel()
    }

    /// Validates a redirect against a pending request and finishes the login: the exchange
    /// (never repeated, R4, but with its DPoP nonce and proof retries, R3) and ID token
    /// validation (A7). Used by ``login(_:timeout:dpopKey:onPending:present:)`` and for a redirect delivered to a restored pending
    /// request (P2, L2).
    /// - Parameters:
    ///   - redirect: the redirect that arrived.
    ///   - pending: the request it answers.
    ///   - issuerParameterRequired: whether the provider advertises RFC 9207 `iss`.
    ///   - dpopKey: the key the pending request was bound to (its `dpopThumbprint`).
    /// - Throws: `.configuration(.stateMismatch | .issuerMismatch)` before any token request
    ///   (E12); `.reauthenticate(.credentialsInvalidated)` when the request was bound to a DPoP
    ///   key and that key is not supplied; `.configuration(.providerUnsupported)` for a Bearer
    ///   answer to a DPoP exchange in `.require` mode without Bearer fallback (D5).
    public func complete(
        _ redirect: AuthorizationRedirect, pending: PendingAuthorization, issuerParameterRequired: Bool,
        dpopKey: DPoPKey? = nil
    ) async throws(VersolaError) -> Grant {
        if pending.isExpired(at: environment.clock.wallClockNow) { throw .recoverable(.pendingRequestExpired) }
        let code = try redirect.validatedCode(for: pending, issuerParameterRequired: issuerParameterRequired)
        if let bound = pending.dpopThumbprint, dpopKey?.thumbprint != bound {
            environment.log.record(VersolaLogEvent(.error, "the DPoP key the pending request was bound to is missing"))
            throw .reauthenticate(.credentialsInvalidated)
        }
        let budget = try newBudget()
        let metadata = try await discovery.metadata(budget: budget)
        let tokens: TokenResponse
        do {
            tokens = try await TokenEndpoint(metadata: metadata, configuration: configuration, sender: sender)
                .exchangeCode(
                    code: code, verifier: pending.codeVerifier, redirectURI: pending.redirectURI, budget: budget,
                    dpopKey: dpopKey)
        } catch {
            await discovery.forgetKeptCopy(after: error)
            throw error
        }
        return try await newGrant(
            tokens, metadata: metadata, nonce: pending.nonce, scope: pending.scope, budget: budget, dpopKey: dpopKey)
    }

    /// Whether a scope string asks for an ID token (`openid` among its words, A16).
    static func asksForIDToken(_ scope: String) -> Bool {
        scope.split(separator: " ").contains { $0 == ProviderMetadata.openIDScope }
    }

    /// The grant of a login's token answer: the token type checked against the key (D5), and
    /// when `openid` was asked for, the ID token required and validated (A7; its `nonce` only
    /// when the login sent one, as OIDC Core asks: the device flow sends none). Without
    /// `openid` no ID token is expected, and one that comes anyway is neither checked nor kept (A16).
    func newGrant(
        _ tokens: TokenResponse, metadata: ProviderMetadata, nonce: String?, scope: String, budget: OperationBudget,
        dpopKey: DPoPKey?
    ) async throws(VersolaError) -> Grant {
        try checkTokenType(tokens, boundTo: dpopKey)
        var idToken: String?
        var claims: IDTokenClaims?
        if Self.asksForIDToken(scope) {
            guard let token = tokens.idToken else {
                throw .configuration(
                    .idTokenRejected(
                        IDTokenRejection(.missing, "the token response has no id_token although openid was requested")))
            }
            claims = try await validator(metadata).validate(
                token, nonce: nonce, accessToken: tokens.accessToken, budget: budget)
            idToken = token
        }
        return Grant(
            accessToken: tokens.accessToken, tokenType: tokens.tokenType,
            expiresAt: tokens.expiresIn.map { environment.clock.wallClockNow.addingTimeInterval(Self.seconds($0)) },
            refreshToken: tokens.refreshToken, idToken: idToken, claims: claims, scope: tokens.scope, dpopKey: dpopKey)
    }

    /// R8: the provider asked for quiet at its token endpoint; a login says so before a browser
    /// opens or a user code is shown.
    func checkCooldown(_ metadata: ProviderMetadata) async throws(VersolaError) {
        if let origin = Origin(url: metadata.tokenEndpoint), let wait = await environment.http.cooldown(for: origin) {
            throw .recoverable(
                .server(ServerFailure(status: 503, retryAfter: wait, failedRequests: 0, elapsed: .zero)))
        }
    }

    // MARK: Steps

    func newBudget() throws(VersolaError) -> OperationBudget {
        try configuration.newBudget(clock: environment.clock)
    }

    /// The budget a caller passed for a step of its operation, else a new one.
    func operationBudget(_ given: OperationBudget?) throws(VersolaError) -> OperationBudget {
        if let given { return given }
        return try newBudget()
    }

    /// The ID token validator for this provider.
    /// - Throws: `.configuration(.providerUnsupported)` when the provider publishes no key set
    ///   (a plain OAuth 2.0 server asked for `openid`).
    func validator(_ metadata: ProviderMetadata) throws(VersolaError) -> IDTokenValidator {
        let cache: JWKSCache
        if let keys { cache = keys } else {
            guard let jwksURI = metadata.jwksURI else {
                throw .configuration(
                    .providerUnsupported(
                        "the provider issued an ID token but publishes no jwks_uri to check it with; "
                            + "leave openid out of the scopes, or give --endpoint jwks=URL"))
            }
            cache = JWKSCache(jwksURI: jwksURI, sender: sender, issuer: metadata.issuer)
            keys = cache
        }
        return IDTokenValidator(configuration: configuration, metadata: metadata, keys: cache, clock: environment.clock)
    }

    /// D5: in `.require` mode a Bearer answer to a request made with a DPoP proof is refused
    /// unless the application allowed Bearer fallback; in `.auto` mode it is accepted (A11).
    func checkTokenType(_ tokens: TokenResponse, boundTo key: DPoPKey?) throws(VersolaError) {
        guard key != nil, tokens.tokenType == .bearer else { return }
        // A11: only `.require` insists; `.auto` takes what the provider issues.
        guard configuration.allowsBearerFallback || configuration.dpop != .require else {
            throw .configuration(
                .providerUnsupported(
                    "the provider answered a DPoP-bound token request with a Bearer token; use --dpop off "
                        + "(DPoP mode off), or allow Bearer fallback to accept it"))
        }
        environment.log.record(VersolaLogEvent(.warning, "the provider issued a Bearer token to a DPoP request; accepted"))
    }

    private func newPendingAuthorization(redirectURI: String, parameters: AuthorizationParameters, dpopKey: DPoPKey?)
        -> PendingAuthorization
    {
        let random = environment.random
        let scope = parameters.scopes?.joined(separator: " ") ?? configuration.requestedScope
        return PendingAuthorization(
            state: Base64URL.encode(random.bytes(16)), nonce: Base64URL.encode(random.bytes(16)),
            codeVerifier: PKCE(random: random).verifier, redirectURI: redirectURI, issuer: configuration.issuer,
            clientID: configuration.clientID, scope: scope, acrValues: parameters.acrValues, maxAge: parameters.maxAge,
            dpopThumbprint: dpopKey?.thumbprint, createdAt: environment.clock.wallClockNow)
    }

    private func authorizationQuery(pending: PendingAuthorization, parameters: AuthorizationParameters) -> [(String, String)] {
        var query: [(String, String)] = [
            ("response_type", "code"), ("client_id", pending.clientID), ("redirect_uri", pending.redirectURI),
        ]
        // No scope chosen (a resource that names none, A19): no `scope` at all, not an empty one.
        if !pending.scope.isEmpty { query.append(("scope", pending.scope)) }
        query.append(("state", pending.state))
        // The nonce is OpenID Connect's (it comes back in the ID token): sent only with `openid`.
        if Self.asksForIDToken(pending.scope) { query.append(("nonce", pending.nonce)) }
        query += [("code_challenge", PKCE(verifier: pending.codeVerifier).challenge), ("code_challenge_method", "S256")]
        if let thumbprint = pending.dpopThumbprint { query.append(("dpop_jkt", thumbprint)) }
        query += parameters.pairs
        return query
    }

    static func appending(_ pairs: [(String, String)], to url: URL) -> String {
        let body = FormBody(pairs.map { FormBody.Field(name: $0.0, value: $0.1) })
        let base = url.absoluteString
        return base + (base.contains("?") ? "&" : "?") + String(decoding: body.encoded, as: UTF8.self)
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let parts = duration.components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
