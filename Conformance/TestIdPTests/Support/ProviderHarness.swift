import Foundation
import Testing
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

/// Drives a ``TestProvider`` in-process (no sockets) on a hand-moved clock, as a client
/// would, with helpers to do each step right or deliberately wrong.
struct ProviderHarness: Sendable {
    let provider: TestProvider
    let clock: ProviderTestClock
    let issuer: String

    /// Wraps a provider already made.
    init(provider: TestProvider, clock: ProviderTestClock, issuer: String) {
        self.provider = provider
        self.clock = clock
        self.issuer = issuer
    }

    /// A provider of its own (new signing keys) with the strict defaults, changed by `configure`.
    /// Prefer ``withProvider(issuer:configure:_:)`` unless the test rotates keys.
    init(issuer: String = "http://127.0.0.1", configure: (inout TestProviderConfiguration) -> Void = { _ in }) throws {
        var configuration = TestProviderConfiguration()
        configure(&configuration)
        let clock = ProviderTestClock()
        self.clock = clock
        self.issuer = issuer
        provider = try TestProvider(configuration: configuration, issuer: issuer, now: clock.source)
    }

    /// The issuer's path (`""` or `/tenant`): request targets start with it.
    var issuerPath: String {
        guard let schemeEnd = issuer.range(of: "://"), let slash = issuer[schemeEnd.upperBound...].firstIndex(of: "/")
        else { return "" }
        return String(issuer[slash...])
    }

    /// The absolute URL of `path` under the issuer (what `htu` names).
    func url(_ path: String) -> String { issuer + path }

    // MARK: Raw requests

    func get(_ path: String, query: [(String, String)] = [], headers: HTTPHeaders = [:]) async -> HTTPServerAction {
        let target = issuerPath + path + (query.isEmpty ? "" : "?" + FormEncoder.encode(query))
        return await provider.handle(HTTPServerRequest(method: "GET", target: target, headers: headers))
    }

    func post(_ path: String, form: [(String, String)], headers: HTTPHeaders = [:]) async -> HTTPServerAction {
        var fields = headers
        fields.add("Content-Type", "application/x-www-form-urlencoded")
        return await provider.handle(
            HTTPServerRequest(
                method: "POST", target: issuerPath + path, headers: fields, body: Array(FormEncoder.encode(form).utf8)))
    }

    // MARK: Authorization

    /// `GET /authorize` with the request's parameters.
    func startAuthorization(_ request: AuthorizationRequest) async -> HTTPServerAction {
        await get("/authorize", query: request.parameters)
    }

    /// The login ticket of a form page.
    static func ticket(in page: HTTPServerAction) -> String? {
        let html = page.text
        guard let start = html.range(of: "name=\"ticket\" value=\"") else { return nil }
        let rest = html[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// Submits the sign-in form for `ticket`.
    func submitLogin(
        ticket: String, username: String = "alice", password: String = "wonderland", decision: String = "allow"
    ) async -> HTTPServerAction {
        await post(
            "/authorize",
            form: [("ticket", ticket), ("username", username), ("password", password), ("decision", decision)])
    }

    /// Starts the request and, when a form comes back, signs in as alice: the final redirect.
    func signIn(_ request: AuthorizationRequest) async throws -> HTTPServerAction {
        let first = await startAuthorization(request)
        guard first.status == 200 else { return first }
        let ticket = try #require(Self.ticket(in: first), "the page has no login ticket")
        return await submitLogin(ticket: ticket)
    }

    /// A code for `request`, checking the redirect carries it with `state` and `iss`.
    func code(for request: AuthorizationRequest) async throws -> String {
        let redirect = try await signIn(request)
        try #require(redirect.status == 302, "expected a redirect, got \(redirect.status ?? -1): \(redirect.text)")
        let parameters = redirect.redirectParameters
        #expect(parameters["state"] == request.state)
        #expect(parameters["iss"] == issuer)
        return try #require(parameters["code"])
    }

    // MARK: Token endpoint

    /// The code exchange, with the request's own values unless overridden.
    func exchange(
        code: String, for request: AuthorizationRequest, verifier: String? = nil, redirectURI: String? = nil,
        clientID: String? = nil, dpop: String? = nil
    ) async -> HTTPServerAction {
        var headers = HTTPHeaders()
        if let dpop { headers.add("DPoP", dpop) }
        return await post(
            "/token",
            form: [
                ("grant_type", "authorization_code"), ("code", code),
                ("redirect_uri", redirectURI ?? request.redirectURI), ("client_id", clientID ?? request.clientID),
                ("code_verifier", verifier ?? request.pkce.verifier),
            ], headers: headers)
    }

    /// A refresh.
    func refresh(_ refreshToken: String, clientID: String = "versola-test", dpop: String? = nil) async
        -> HTTPServerAction
    {
        var headers = HTTPHeaders()
        if let dpop { headers.add("DPoP", dpop) }
        return await post(
            "/token", form: [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", clientID)],
            headers: headers)
    }

    /// A DPoP proof for the token endpoint by `key`, now.
    func tokenProof(_ key: ClientDPoPKey, nonce: String? = nil) throws -> String {
        try key.proof("POST", url("/token"), at: clock.now, nonce: nonce)
    }

    /// Reads a successful token answer.
    static func tokens(from answer: HTTPServerAction) throws -> IssuedTokens {
        try #require(answer.status == 200, "token request failed: \(answer.text)")
        let json = try #require(answer.json)
        return IssuedTokens(
            accessToken: try #require(json["access_token"]?.string), refreshToken: json["refresh_token"]?.string,
            idToken: try #require(json["id_token"]?.string), tokenType: try #require(json["token_type"]?.string))
    }

    /// The whole code flow done right: sign in, exchange (with a proof by `key` when given).
    func tokens(_ request: AuthorizationRequest = AuthorizationRequest(), key: ClientDPoPKey? = nil) async throws
        -> IssuedTokens
    {
        let code = try await code(for: request)
        let proof = try key.map { try tokenProof($0) }
        return try Self.tokens(from: await exchange(code: code, for: request, dpop: proof))
    }

    // MARK: Protected endpoints

    /// `GET` a protected endpoint with `Authorization: <scheme> <token>` and an optional proof.
    func getProtected(_ path: String, scheme: String, token: String, dpop: String? = nil) async -> HTTPServerAction {
        var headers: HTTPHeaders = ["Authorization": "\(scheme) \(token)"]
        if let dpop { headers.add("DPoP", dpop) }
        return await get(path, headers: headers)
    }

    /// `GET` a protected endpoint with a DPoP-bound token and a correct proof by `key`.
    func getWithDPoP(_ path: String, token: String, key: ClientDPoPKey, nonce: String? = nil) async throws
        -> HTTPServerAction
    {
        let proof = try key.proof("GET", url(path), at: clock.now, accessToken: token, nonce: nonce)
        return await getProtected(path, scheme: "DPoP", token: token, dpop: proof)
    }

    // MARK: ID tokens

    /// The claims of an ID token after checking its signature against the published JWKS.
    /// - Returns: the claims and the key that verified.
    func verifiedClaims(of idToken: String) async throws -> (claims: JSONValue, key: JWK) {
        let jwks = await get("/jwks")
        let set = try JWKSet(parsing: jwks.response?.body ?? [])
        let jws = try JWS(compact: idToken)
        let key = try jws.verify(using: set, allowedAlgorithms: [.rs256, .es256])
        return (try jws.payloadJSON(), key)
    }

    /// The payload of a compact JWS without any check (for tokens that must fail checks).
    static func unverifiedPayload(_ token: String) throws -> JSONValue {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        return try JSONValue(parsing: try Base64URL.decode(parts[1]))
    }

    /// The header of a compact JWS without any check.
    static func unverifiedHeader(_ token: String) throws -> JSONValue {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        return try JSONValue(parsing: try Base64URL.decode(parts[0]))
    }
}
