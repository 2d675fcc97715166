import Foundation
import VersolaJOSE

/// The authorization engine for one client at one provider: discovery, PKCE, PAR, the
/// loopback browser leg, the code exchange and ID token validation (A1–A9, E9, E11, E12, L1).
///
/// ```swift
/// let client = try OpenIDClient(configuration: ClientConfiguration(issuer: "https://login.example.com", clientID: "cli"))
/// let grant = try await client.login { prompt in
///     print("Open \(prompt.url) to sign in")
/// }
/// print(grant.claims.subject)
/// ```
public actor OpenIDClient {
    /// The validated configuration.
    public let configuration: ClientConfiguration
    /// The environment every request goes through.
    public let environment: EngineEnvironment
    private let browser: any BrowserLauncher
    private let sender: EndpointSender
    private let discovery: DiscoveryClient
    private var keys: JWKSCache?
    private var activeListener: LoopbackListener?

    /// Creates the engine after validating the configuration (R2): nothing is sent before.
    /// - Throws: `.configuration(.invalidConfiguration)`.
    public init(
        configuration: ClientConfiguration, environment: EngineEnvironment? = nil,
        browser: any BrowserLauncher = SystemBrowser()
    ) throws(VersolaError) {
        try configuration.validate()
        let environment = environment ?? .system(transport: configuration.transport)
        self.configuration = configuration
        self.environment = environment
        self.browser = browser
        self.sender = EndpointSender(environment: environment)
        self.discovery = DiscoveryClient(configuration: configuration, sender: sender)
    }

    /// The provider's metadata, fetched once and cached (A1, R5).
    public func metadata() async throws(VersolaError) -> ProviderMetadata {
        try await discovery.metadata(budget: newBudget())
    }

    /// Runs an interactive login: everything up to the browser, the browser leg, then the
    /// code exchange and ID token validation.
    /// - Parameters:
    ///   - parameters: extra authorization parameters (prompt, acr_values, …).
    ///   - timeout: how long the person has to finish in the browser.
    ///   - onPending: called with the pending request before the browser opens (P1), so it
    ///     can be persisted.
    ///   - present: called once the browser was (or could not be) started; show the URL
    ///     when `browserOpened` is false (L1).
    /// - Returns: the grant.
    /// - Throws: a `VersolaError` of any category; a configuration error found before the
    ///   browser (discovery, an unsupported provider, a rejected push) never opens it.
    public func login(
        _ parameters: AuthorizationParameters = AuthorizationParameters(),
        timeout: Duration = .seconds(300),
        onPending: (@Sendable (PendingAuthorization) async -> Void)? = nil,
        present: (@Sendable (AuthorizationPrompt) async -> Void)? = nil
    ) async throws(VersolaError) -> Grant {
        let before = try newBudget()
        let metadata = try await discovery.metadata(budget: before)
        try metadata.checkSupports(configuration)
        if let origin = Origin(url: metadata.tokenEndpoint), let wait = await environment.http.cooldown(for: origin) {
            // R8: the provider asked for quiet; say so before a browser opens.
            throw .recoverable(
                .server(ServerFailure(status: 503, retryAfter: wait, failedRequests: 0, elapsed: .zero)))
        }
        let listener = try LoopbackListener.start(configuration.redirect)
        activeListener = listener
        defer { Task { await listener.stop() } }
        let pending = newPendingAuthorization(redirectURI: listener.redirectURI, parameters: parameters)
        let query = authorizationQuery(pending: pending, parameters: parameters)
        let url: String
        if metadata.usesPushedAuthorization(for: configuration), let endpoint = metadata.pushedAuthorizationRequestEndpoint {
            let requestURI = try await push(query, to: endpoint, budget: before)
            url = Self.appending([("client_id", configuration.clientID), ("request_uri", requestURI)], to: metadata.authorizationEndpoint)
        } else {
            url = Self.appending(query, to: metadata.authorizationEndpoint)
        }
        await onPending?(pending)
        let opened = await browser.open(url)
        await present?(AuthorizationPrompt(url: url, browserOpened: opened, redirectURI: listener.redirectURI))
        let redirect = try await listener.waitForRedirect(timeout: timeout, clock: environment.clock)
        activeListener = nil
        return try await complete(
            redirect, pending: pending, issuerParameterRequired: metadata.authorizationResponseIssParameterSupported)
    }

    /// Hands a redirect URL to the login in progress (pasted by the person, L2).
    /// - Returns: false when no login waits or it already has its redirect.
    @discardableResult
    public func deliverRedirect(_ url: String) -> Bool {
        activeListener?.deliver(url) ?? false
    }

    /// Cancels the login in progress on the person's behalf (`userCancelled`, E7).
    public func cancelLogin() {
        activeListener?.cancel()
    }

    /// Validates a redirect against a pending request and finishes the login: the exchange
    /// (never repeated, R4) and ID token validation (A7). Used by ``login`` and for a
    /// redirect delivered to a restored pending request (P2, L2).
    /// - Throws: `.configuration(.stateMismatch | .issuerMismatch)` before any token request (E12).
    public func complete(_ redirect: AuthorizationRedirect, pending: PendingAuthorization, issuerParameterRequired: Bool)
        async throws(VersolaError) -> Grant
    {
        if pending.isExpired(at: environment.clock.wallClockNow) { throw .recoverable(.pendingRequestExpired) }
        let code = try redirect.validatedCode(for: pending, issuerParameterRequired: issuerParameterRequired)
        let budget = try newBudget()
        let metadata = try await discovery.metadata(budget: budget)
        let tokens = try await TokenEndpoint(metadata: metadata, configuration: configuration, sender: sender)
            .exchangeCode(code: code, verifier: pending.codeVerifier, redirectURI: pending.redirectURI, budget: budget)
        guard let idToken = tokens.idToken else {
            throw .configuration(.idTokenRejected("the token response has no id_token although openid was requested"))
        }
        let claims = try await validator(metadata).validate(
            idToken, nonce: pending.nonce, accessToken: tokens.accessToken, budget: budget)
        return Grant(
            accessToken: tokens.accessToken, tokenType: tokens.tokenType,
            expiresAt: tokens.expiresIn.map { environment.clock.wallClockNow.addingTimeInterval(Self.seconds($0)) },
            refreshToken: tokens.refreshToken, idToken: idToken, claims: claims, scope: tokens.scope)
    }

    /// Uses a refresh token (R6) and validates the new ID token against the previous claims (A7).
    public func refresh(_ grant: Grant) async throws(VersolaError) -> Grant {
        guard let refreshToken = grant.refreshToken else { throw .reauthenticate(.sessionExpired) }
        let budget = try newBudget()
        let metadata = try await discovery.metadata(budget: budget)
        let tokens = try await TokenEndpoint(metadata: metadata, configuration: configuration, sender: sender)
            .refresh(refreshToken: refreshToken, budget: budget)
        var claims = grant.claims
        var idToken = grant.idToken
        if let fresh = tokens.idToken {
            claims = try await validator(metadata).validate(
                fresh, nonce: nil, accessToken: tokens.accessToken, previous: grant.claims, budget: budget)
            idToken = fresh
        }
        return Grant(
            accessToken: tokens.accessToken, tokenType: tokens.tokenType,
            expiresAt: tokens.expiresIn.map { environment.clock.wallClockNow.addingTimeInterval(Self.seconds($0)) },
            refreshToken: tokens.refreshToken ?? refreshToken, idToken: idToken, claims: claims,
            scope: tokens.scope ?? grant.scope)
    }

    /// The UserInfo claims for a grant, checked against its ID token's `sub` (A8).
    public func userInfo(_ grant: Grant) async throws(VersolaError) -> UserInfo {
        let budget = try newBudget()
        let metadata = try await discovery.metadata(budget: budget)
        guard let endpoint = metadata.userInfoEndpoint else {
            throw .configuration(.providerUnsupported("the provider has no UserInfo endpoint"))
        }
        return try await UserInfoEndpoint(url: endpoint, sender: sender)
            .fetch(accessToken: grant.accessToken, expectedSubject: grant.claims.subject, budget: budget)
    }

    /// Revokes a grant's refresh token (A9); fire-and-forget: the result only says whether
    /// the provider confirmed.
    @discardableResult
    public func revoke(_ grant: Grant) async -> Bool {
        guard let refreshToken = grant.refreshToken, let budget = try? newBudget(),
            let metadata = try? await discovery.metadata(budget: budget), let endpoint = metadata.revocationEndpoint
        else { return false }
        return await RevocationEndpoint(url: endpoint, clientID: configuration.clientID, sender: sender)
            .revoke(refreshToken: refreshToken, budget: budget)
    }

    // MARK: Steps

    private func newBudget() throws(VersolaError) -> OperationBudget {
        try OperationBudget(policy: configuration.retryPolicy, clock: environment.clock)
    }

    private func validator(_ metadata: ProviderMetadata) -> IDTokenValidator {
        let cache: JWKSCache
        if let keys { cache = keys } else {
            cache = JWKSCache(jwksURI: metadata.jwksURI, sender: sender)
            keys = cache
        }
        return IDTokenValidator(configuration: configuration, metadata: metadata, keys: cache, clock: environment.clock)
    }

    private func newPendingAuthorization(redirectURI: String, parameters: AuthorizationParameters) -> PendingAuthorization {
        let random = environment.random
        let scope = parameters.scopes.map { (["openid"] + $0.filter { $0 != "openid" }).joined(separator: " ") }
            ?? configuration.requestedScope
        return PendingAuthorization(
            state: Base64URL.encode(random.bytes(16)), nonce: Base64URL.encode(random.bytes(16)),
            codeVerifier: PKCE(random: random).verifier, redirectURI: redirectURI, issuer: configuration.issuer,
            clientID: configuration.clientID, scope: scope, acrValues: parameters.acrValues, maxAge: parameters.maxAge,
            createdAt: environment.clock.wallClockNow)
    }

    private func authorizationQuery(pending: PendingAuthorization, parameters: AuthorizationParameters) -> [(String, String)] {
        var query: [(String, String)] = [
            ("response_type", "code"), ("client_id", pending.clientID), ("redirect_uri", pending.redirectURI),
            ("scope", pending.scope), ("state", pending.state), ("nonce", pending.nonce),
            ("code_challenge", PKCE(verifier: pending.codeVerifier).challenge), ("code_challenge_method", "S256"),
        ]
        if let thumbprint = pending.dpopThumbprint { query.append(("dpop_jkt", thumbprint)) }
        query += parameters.pairs
        return query
    }

    /// RFC 9126: the push carries every parameter; a refusal is a configuration error before
    /// any browser opens (E11).
    private func push(_ query: [(String, String)], to endpoint: URL, budget: OperationBudget) async throws(VersolaError)
        -> String
    {
        let body = FormBody(query.map { FormBody.Field(name: $0.0, value: $0.1) })
        let request = HTTPRequest(
            method: .post, url: endpoint, headers: ["Content-Type": FormBody.contentType, "Accept": "application/json"],
            body: body.encoded)
        let response = try await sender.send(request, kind: .read, budget: budget)
        guard (200..<300).contains(response.status) else {
            let detail = OAuthErrorResponse(body: response.body).map { "the provider refused the pushed request: \($0.code)" }
                ?? "the provider refused the pushed request with status \(response.status)"
            throw .configuration(.authorizationRejected(detail))
        }
        guard let document = try? JSONValue(parsing: response.body), let requestURI = document["request_uri"]?.string,
            !requestURI.isEmpty
        else {
            throw .recoverable(
                .server(ServerFailure(status: response.status, failedRequests: budget.failedRequests, elapsed: budget.elapsed)))
        }
        return requestURI
    }

    private static func appending(_ pairs: [(String, String)], to url: URL) -> String {
        let body = FormBody(pairs.map { FormBody.Field(name: $0.0, value: $0.1) })
        let base = url.absoluteString
        return base + (base.contains("?") ? "&" : "?") + String(decoding: body.encoded, as: UTF8.self)
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let parts = duration.components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
