import Foundation
import VersolaCrypto
import VersolaHTTP
import VersolaJOSE

/// A strict OpenID Provider for tests, demos and conformance runs.
///
/// It answers like a standards-following provider (PKCE S256 only, exact redirect URIs,
/// single-use codes, rotating refresh tokens with reuse detection, DPoP checked as RFC 9449
/// §4.3 says) unless a ``TestFaultRule`` tells it to misbehave, and it records every
/// request so a scenario can assert what was sent. The transport is separate:
/// ``TestIdentityServer`` binds it to loopback sockets; `handle(_:baseURL:)` can also be
/// called directly.
///
/// ```swift
/// let idp = try await TestIdentityServer.start()
/// await idp.provider.arm(TestFaultRule(.token, .respond(status: 503, headers: ["Retry-After": "2"])))
/// // … run the client against idp.issuer …
/// let tokenRequests = await idp.provider.requests(to: .token)
/// ```
public actor TestProvider {
    /// The behaviour without faults.
    public private(set) var configuration: TestProviderConfiguration
    /// The issuer identifier, e.g. `http://127.0.0.1:49152`.
    public private(set) var issuer: String
    let now: @Sendable () -> Date

    var signingKeys: TestSigningKeys
    var codes: [String: CodeRecord] = [:]
    var accessTokens: [String: AccessTokenRecord] = [:]
    var refreshTokens: [String: RefreshTokenRecord] = [:]
    var pushedRequests: [String: PushedRequestRecord] = [:]
    var loginTickets: [String: AuthorizationRequestRecord] = [:]
    /// Device authorizations by device code, and the sign-in forms of their verification pages.
    var deviceCodes: [String: DeviceCodeRecord] = [:]
    var deviceTickets: [String: String] = [:]
    var revokedFamilies: Set<String> = []
    var seenProofIDs: [String: Date] = [:]
    var authorizationServerNonces: [String] = []
    var resourceServerNonces: [String] = []
    var faultRules: [TestFaultRule] = []
    /// Requests a `holdUntilReleased` fault holds.
    var heldRequests: [CheckedContinuation<Void, Never>] = []
    var log: [RecordedRequest] = []
    /// Base URL of the separate resource server, when one runs (its own origin).
    var resourceBaseURL: String?

    /// Where the provider's work runs: threads of its own, never Swift's task pool.
    private let executor = ProviderExecutor()
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Creates a provider.
    /// - Parameters:
    ///   - configuration: its behaviour without faults.
    ///   - issuer: the issuer identifier; ``TestIdentityServer`` sets it once the port is known.
    ///   - now: the provider's clock (tests move it by hand).
    /// - Throws: `CryptoError` when its signing keys cannot be generated.
    public init(
        configuration: TestProviderConfiguration = TestProviderConfiguration(),
        issuer: String = "http://127.0.0.1",
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(CryptoError) {
        self.configuration = configuration
        self.issuer = issuer
        self.now = now
        self.signingKeys = try TestSigningKeys(generation: 1)
    }

    /// Sets the issuer identifier (no trailing slash).
    public func setIssuer(_ issuer: String) {
        // A trailing `/` is dropped, except from an issuer that is an origin and `/` alone
        // (Auth0's shape), which keeps it: the issuer is compared exactly (A1).
        let originOnly = issuer.components(separatedBy: "/").count == 4 && issuer.hasSuffix("/")
        self.issuer = issuer.hasSuffix("/") && !originOnly ? String(issuer.dropLast()) : issuer
    }

    /// Sets where the separate resource server listens.
    func setResourceBaseURL(_ url: String) {
        resourceBaseURL = url
    }

    /// Replaces the behaviour without faults.
    public func configure(_ update: @Sendable (inout TestProviderConfiguration) -> Void) {
        update(&configuration)
    }

    /// Arms a fault.
    public func arm(_ rule: TestFaultRule) {
        faultRules.append(rule)
    }

    /// Arms every rule of a plan.
    public func arm(_ plan: TestFaultPlan) {
        faultRules += plan.rules
    }

    /// Disarms every fault.
    public func clearFaults() {
        faultRules.removeAll()
    }

    /// Every request received so far, oldest first; only those to `endpoint` when given.
    public func requests(to endpoint: TestEndpoint? = nil) -> [RecordedRequest] {
        guard let endpoint else { return log }
        return log.filter { $0.endpoint == endpoint }
    }

    /// Forgets the request log.
    public func clearRequestLog() {
        log.removeAll()
    }

    /// Publishes fresh signing keys and signs with them from now on. The previous keys stay
    /// in the JWKS when `retainPrevious` is true, as a provider rotating gracefully does.
    public func rotateSigningKeys(retainPrevious: Bool = true) throws(CryptoError) {
        signingKeys = try signingKeys.rotated(retainPrevious: retainPrevious)
    }

    /// The current DPoP nonce of the authorization server (for tests of nonce handling).
    public func currentAuthorizationServerNonce() -> String {
        if authorizationServerNonces.isEmpty { rotateNonce(&authorizationServerNonces) }
        return authorizationServerNonces[authorizationServerNonces.count - 1]
    }

    /// Whether a refresh token family was revoked (after reuse detection, revocation).
    public func familyWasRevoked(ofRefreshToken token: String) -> Bool {
        guard let record = refreshTokens[token] else { return false }
        return revokedFamilies.contains(record.family)
    }

    /// The number of refresh token families revoked, for scenarios that assert none was.
    public var revokedFamilyCount: Int { revokedFamilies.count }

    /// The number of grants still alive: refresh token families holding a token that was
    /// neither spent by a rotation nor revoked (S15: one sign-in leaves one).
    public var liveFamilyCount: Int {
        Set(refreshTokens.values.filter { !$0.rotated && !revokedFamilies.contains($0.family) }.map(\.family)).count
    }

    // MARK: Serving

    /// Decides, before reading, what to do with a new connection (consumes a
    /// `closeBeforeReading` fault on any endpoint).
    public func acceptDecision() -> HTTPServerAcceptDecision {
        if let index = faultRules.firstIndex(where: { $0.fault == .closeBeforeReading }) {
            consume(at: index)
            return .closeBeforeReading
        }
        return .serve
    }

    /// Which listener a request arrived at.
    public enum Listener: Sendable {
        /// The issuer's origin: every endpoint.
        case authorizationServer
        /// The separate resource server's origin: only the protected resource.
        case resourceServer
    }

    /// Answers one request.
    public func handle(_ request: HTTPServerRequest, arrivedAt listener: Listener = .authorizationServer) async
        -> HTTPServerAction
    {
        let endpoint = endpoint(forPath: request.path, listener: listener)
        let baseURL = listener == .resourceServer ? (resourceBaseURL ?? issuerOrigin) : issuerOrigin
        log.append(
            RecordedRequest(
                endpoint: endpoint, method: request.method, target: request.target, headers: request.headers,
                body: request.body, receivedAt: now()))
        guard let endpoint else { return .respond(HTTPServerResponse(status: 404)) }
        if endpoint != .admin, let action = await transportFault(for: endpoint) {
            return action
        }
        let url = baseURL + request.path
        switch endpoint {
        case .discovery: return .respond(discoveryResponse())
        case .jwks: return .respond(.json(signingKeys.publishedSet.serializedBytes()))
        case .authorize:
            await adoptClientMetadataDocument(request)
            return authorize(request)
        case .par: return pushAuthorizationRequest(request, url: url)
        case .token: return shapedTokenAnswer(token(request, url: url), request: request)
        case .userinfo: return missingUserAgent(request) ?? userInfo(request, url: url)
        case .revocation: return revoke(request)
        case .endSession: return endSession(request)
        case .deviceAuthorization: return deviceAuthorization(request, url: url)
        case .deviceVerification: return deviceVerification(request)
        case .resource: return missingUserAgent(request) ?? resource(request, url: url)
        case .admin: return admin(request)
        case .registration: return register(request)
        case .resourceMetadata: return protectedResourceMetadata(request)
        case .oauthMetadata: return .respond(HTTPServerResponse(status: 404))
        }
    }

    private func endpoint(forPath path: String, listener: Listener) -> TestEndpoint? {
        if listener == .resourceServer {
            if path == TestEndpoint.resource.path
                || configuration.protectedResourcePaths.contains(where: { path == $0 || path.hasPrefix($0 + "/") })
            {
                return .resource
            }
            if !configuration.protectedResourcePaths.isEmpty, servesResourceMetadata(atPath: path) {
                return .resourceMetadata
            }
            return nil
        }
        // Without a resource server of its own, the protected resources are on the issuer's
        // origin (an MCP server that is its own authorization server, as in 2025-03-26).
        if resourceBaseURL == nil, !configuration.protectedResourcePaths.isEmpty {
            if configuration.protectedResourcePaths.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) {
                return .resource
            }
            if servesResourceMetadata(atPath: path) { return .resourceMetadata }
        }
        // RFC 8414 §3.1: the metadata of an OAuth 2.0 server sits before the issuer's path.
        if path == TestEndpoint.oauthMetadataPath + routePath {
            return configuration.metadata == .oauthAuthorizationServer ? .discovery : .oauthMetadata
        }
        let prefix = routePath
        guard path.hasPrefix(prefix) else { return nil }
        let rest = String(path.dropFirst(prefix.count))
        if rest.hasPrefix(TestEndpoint.admin.path + "/") { return .admin }
        if rest == TestEndpoint.discovery.path, configuration.metadata != .openIDConfiguration { return nil }
        return TestEndpoint.allCases.first { $0.path == rest && $0 != .oauthMetadata }
    }

    /// The issuer's scheme, host and port, without its path.
    var issuerOrigin: String {
        String(issuer.dropLast(issuerPath.count))
    }

    /// The issuer's path (`""` or `/tenant`).
    var issuerPath: String {
        guard let schemeEnd = issuer.range(of: "://"),
            let slash = issuer[schemeEnd.upperBound...].firstIndex(of: "/")
        else { return "" }
        return String(issuer[slash...])
    }

    /// The issuer's path without a trailing `/` (an issuer may end in one, as Auth0's do):
    /// the endpoints are below it.
    var routePath: String {
        issuerPath.hasSuffix("/") ? String(issuerPath.dropLast()) : issuerPath
    }

    /// The public URL of an endpoint.
    func url(of endpoint: TestEndpoint) -> String {
        if endpoint == .resource, let resourceBaseURL { return resourceBaseURL + endpoint.path }
        return issuerOrigin + routePath + endpoint.path
    }

    // MARK: Faults

    /// Applies a fault that replaces the whole answer (status, close, reset, redirect, delay).
    /// At most one `delay` applies per request, so a delay armed for ever cannot loop.
    private func transportFault(for endpoint: TestEndpoint) async -> HTTPServerAction? {
        var waited = false
        while let index = faultRules.firstIndex(where: {
            $0.endpoint == endpoint && $0.fault.isTransportLevel && !(waited && $0.fault.goesOnToTheEndpoint)
        }) {
            let fault = faultRules[index].fault
            consume(at: index)
            switch fault {
            case .respond(let status, let headers, let body):
                var fields = HTTPHeaders()
                for (name, value) in headers.sorted(by: { $0.key < $1.key }) { fields.add(name, value) }
                if !body.isEmpty, !fields.contains("Content-Type") { fields.add("Content-Type", "application/json") }
                return .respond(HTTPServerResponse(status: status, headers: fields, body: Array(body.utf8)))
            case .delay(let milliseconds):
                waited = true
                try? await Task.sleep(for: .milliseconds(milliseconds))
                continue
            case .holdUntilReleased:
                waited = true
                await hold()
                continue
            case .createFiles(let paths):
                waited = true
                for path in paths { _ = FileManager.default.createFile(atPath: path, contents: Data()) }
                continue
            case .closeAfterReading: return .closeWithoutAnswer
            case .reset: return .reset
            case .redirect(let location):
                return .respond(HTTPServerResponse(status: 302, headers: ["Location": location]))
            default: return nil
            }
        }
        return nil
    }

    /// Takes the first armed fault on `endpoint` that `matches`, consuming one use.
    func takeFault(_ endpoint: TestEndpoint, where matches: (TestFault) -> Bool) -> TestFault? {
        guard let index = faultRules.firstIndex(where: { $0.endpoint == endpoint && matches($0.fault) }) else {
            return nil
        }
        let fault = faultRules[index].fault
        consume(at: index)
        return fault
    }

    /// Whether `fault` is armed on `endpoint`, consuming one use when it is.
    func takeFault(_ endpoint: TestEndpoint, _ fault: TestFault) -> Bool {
        takeFault(endpoint) { $0 == fault } != nil
    }

    private func consume(at index: Int) {
        if let remaining = faultRules[index].remaining {
            if remaining <= 1 { faultRules.remove(at: index) } else { faultRules[index].remaining = remaining - 1 }
        }
    }

    // MARK: Helpers shared by the endpoints

    /// A fresh opaque value (codes, tokens, nonces): 256 random bits, base64url.
    /// Registers a client (RFC 7591).
    func addClient(_ client: TestClient) {
        configuration.clients.append(client)
    }

    func opaqueValue() -> String {
        Base64URL.encode(SecureRandom.bytes(32))
    }

    func rotateNonce(_ nonces: inout [String]) {
        nonces.append(opaqueValue())
        if nonces.count > 2 { nonces.removeFirst(nonces.count - 2) }
    }

    /// An OAuth error answer (RFC 6749 §5.2) with `no-store`.
    func oauthError(_ code: String, _ description: String, status: Int = 400, headers: HTTPHeaders = [:])
        -> HTTPServerAction
    {
        var fields = headers
        fields.add("Cache-Control", "no-store")
        let body: JSONValue = ["error": .string(code), "error_description": .string(description)]
        return .respond(
            HTTPServerResponse(
                status: status, headers: fields + ["Content-Type": "application/json"], body: body.serializedBytes()))
    }

    /// A JSON answer with `no-store`.
    func jsonAnswer(_ value: JSONValue, status: Int = 200, headers: HTTPHeaders = [:]) -> HTTPServerAction {
        var fields = headers
        fields.add("Content-Type", "application/json")
        fields.add("Cache-Control", "no-store")
        return .respond(HTTPServerResponse(status: status, headers: fields, body: value.serializedBytes()))
    }
}

extension TestFault {
    /// Faults that replace the whole answer, applied before the endpoint runs.
    var isTransportLevel: Bool {
        switch self {
        case .respond, .delay, .holdUntilReleased, .createFiles, .closeAfterReading, .reset, .redirect: true
        default: false
        }
    }

    /// Faults after which the request goes on to its endpoint: one of them per request.
    var goesOnToTheEndpoint: Bool {
        switch self {
        case .delay, .holdUntilReleased, .createFiles: true
        default: false
        }
    }
}

extension HTTPHeaders {
    static func + (lhs: HTTPHeaders, rhs: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(lhs.fields + rhs.fields)
    }
}
