// The Swift examples of the documentation of `import Versola` (the doc comments of its public
// API here, and the articles of Versola.docc in DocCommentExamples+Articles.swift), each compiled as written: the body of each
// docExample function is one example, and its parameters are what the example takes as given
// (a session, a store, a response). DocCommentExampleTests checks that the documentation shows
// exactly these bodies, so change an example in both places at once.
//
// Only `Versola` (and Foundation) is imported: the examples show what an application can write.

import Foundation
import Versola

// MARK: Sources/Versola/Authorization

func docExampleAuthorizationParameters(session: Session) async throws {
    var extra = AuthorizationParameters()
    extra.prompt = "login"
    extra.loginHint = "alice@example.com"
    extra.acrValues = ["urn:example:mfa"]
    try await session.login(extra)
}

func docExampleDeviceAuthorizationPrompt(session: Session) async throws {
    try await session.loginWithDevice { prompt in
        print("Open \(prompt.verificationURI) and enter \(prompt.userCode)")
    }
}

func docExamplePendingDeviceAuthorization(client: OpenIDClient) async throws {
    let grant = try await client.loginWithDevice(
        onPending: { pending in
            // keep `pending` (it holds the device code, a secret) to go on polling after a restart
            print("waiting for approval until \(pending.expiresAt), polling every \(pending.interval) s")
        },
        present: { prompt in print("Open \(prompt.verificationURI) and enter \(prompt.userCode)") })
    print("signed in as", grant.claims?.subject ?? "(no ID token)")
}

func docExampleEndSessionRequest(
    metadata: ProviderMetadata, grant: Grant, configuration: ClientConfiguration, browser: any BrowserLauncher
) async throws {
    let request = try EndSessionRequest(metadata: metadata, idToken: grant.idToken, configuration: configuration)
    if !(await OneTimeRedirect.open(request.url, in: browser, random: SystemRandomSource(), clock: SystemClock())) {
        print("To sign out at the provider too, open:", request.shareableURL)
    }
}

func docExampleOneTimeRedirect(request: EndSessionRequest) async throws {
    let opened = await OneTimeRedirect.open(request.url, in: SystemBrowser(), random: SystemRandomSource(),
                                            clock: SystemClock(), timeout: OneTimeRedirect.defaultTimeout)
    if !opened { print("To sign out at the provider too, open:", request.shareableURL) }
}

func docExamplePrivateUseRedirect() throws {
    var configuration = ClientConfiguration(issuer: "https://login.example.com", clientID: "my-app")
    configuration.privateUseRedirect = try PrivateUseRedirect("com.example.app:/callback")
}

func docExampleSchemeHandlerEntry() throws {
    let redirect = try PrivateUseRedirect("com.example.app:/callback")
    let entry = try SchemeHandlerEntry(redirect: redirect, name: "com.example.app", displayName: "Example",
                                       command: ["/usr/bin/example-app", "--redirect"])
    try entry.install()      // …and entry.remove() when the application is uninstalled
}

func docExampleLoopbackListener(client: OpenIDClient, pending: PendingAuthorization) async throws {
    let listener = try LoopbackListener.start(LoopbackRedirect())
    listener.expect(state: pending.state)
    // open the browser on an authorization URL carrying listener.redirectURI …
    let redirect = try await listener.waitForRedirect(timeout: .seconds(300), clock: SystemClock())
    await listener.stop()
    let grant = try await client.complete(redirect, pending: pending, issuerParameterRequired: false)
    print("signed in as", grant.claims?.subject ?? "(no ID token)")
}

func docExampleOpenIDClientLoginWithDevice(client: OpenIDClient) async throws {
    let grant = try await client.loginWithDevice(present: { prompt in
        print("Open \(prompt.verificationURI) and enter \(prompt.userCode)")
    })
    print("signed in as", grant.claims?.subject ?? "(no ID token)")
}

func docExampleOpenIDClient() async throws {
    let client = try OpenIDClient(configuration: ClientConfiguration(issuer: "https://login.example.com", clientID: "cli"))
    let grant = try await client.login(present: { prompt in
        print("Open \(prompt.url) to sign in")
    })
    print(grant.claims?.subject ?? "(no ID token)")
}

func docExampleOpenIDClientSend(client: OpenIDClient, grant: Grant, apiURL: URL) async throws {
    let answer = try await client.send(HTTPRequest(url: apiURL), grant: grant)
    print(answer.status)
}

func docExamplePendingRequest(record: SessionRecord) {
    if case .device(let device)? = record.pendingRequest { print(device.userCode) }
}

// MARK: Sources/Versola/Configuration

func docExampleClientConfiguration() throws {
    var configuration = ClientConfiguration(issuer: "https://login.example.com", clientID: "my-cli")
    configuration.scopes = ["openid", "profile", "offline_access"]
    try configuration.validate()
}

// MARK: Sources/Versola/DPoP

func docExampleDPoPKey(seal: ([UInt8]) -> [UInt8], unseal: ([UInt8]) -> [UInt8]) throws {
    let key = try DPoPKey.generate()
    print(key.thumbprint)                       // the `dpop_jkt` value (D4)
    let sealed = seal(key.rawRepresentation)    // secret: encrypt before it leaves memory
    let restored = try DPoPKey(rawRepresentation: unseal(sealed))
    assert(restored == key)
}

func docExampleDPoPNonceCache(response: HTTPResponse, record: inout SessionRecord) {
    let nonces = DPoPNonceCache()
    nonces.learn(from: response)                // the response's `DPoP-Nonce`, if it has one
    record.dpopNonces = nonces.snapshot()       // kept with the grant; `restore(_:)` at startup
}

func docExampleDPoPProof(
    key: DPoPKey, resourceURL: URL, token: String, clock: any VersolaClock, request: inout HTTPRequest
) throws {
    let proof = try DPoPProof.make(
        key: key, method: .get, url: resourceURL, accessToken: token, nonce: nil,
        issuedAt: clock.wallClockNow, random: SystemRandomSource())
    request.headers.set("DPoP", proof)
}

// MARK: Sources/Versola/Discovery

func docExampleJWKSCache(keys: JWKSCache) async {
    if let set = keys.cachedKeySet { print(set.keys.count, "keys, the next refetch in", await keys.timeUntilRefetch()) }
}

func docExampleProviderMetadata(response: HTTPResponse, configuration: ClientConfiguration) throws {
    let metadata = try ProviderMetadata(parsing: response.body, configuredIssuer: configuration.issuer)
    try metadata.checkSupports(configuration)
}

func docExampleProviderCache(configuration: ClientConfiguration) async throws {
    let environment = EngineEnvironment(providerCache: ProviderCache.standard())
    let client = try OpenIDClient(configuration: configuration, environment: environment)
    print(try await client.metadata().issuer)
}

// MARK: Sources/Versola/OAuth

func docExampleOAuthErrorCode() {
    assert(OAuthErrorCode(rawValue: "invalid_grant") == .invalidGrant)
    assert(OAuthErrorCode(rawValue: "slow_down") == .slowDown)
    assert(OAuthErrorCode(rawValue: "custom_thing") == .other("custom_thing"))
}

func docExampleProviderQuirks() throws {
    var configuration = ClientConfiguration(issuer: "https://login.example.com", clientID: "cli")
    configuration.providerQuirks.emptyBadRequestRefusesRefreshToken = false   // strict RFC 6749
    try configuration.validate()
}

func docExampleWWWAuthenticate() {
    let header = WWWAuthenticate(#"DPoP algs="ES256", error="use_dpop_nonce", Bearer realm="api""#)
    print(header.challenges.map(\.scheme))                   // ["DPoP", "Bearer"]
    print(header.challenge(scheme: "dpop")?["error"] ?? "")  // use_dpop_nonce
}

// MARK: Sources/Versola/Session

func docExampleSessionLoginWithDevice(session: Session) async throws {
    try await session.loginWithDevice { prompt in
        print("Open \(prompt.verificationURIComplete ?? prompt.verificationURI)")
        print("and enter the code \(prompt.userCode)")
    }
}

func docExampleSessionCurrentIDToken(session: Session, request: inout HTTPRequest) async throws {
    let credential = try await session.currentIDToken()
    request.headers.set("Authorization", "Bearer " + credential.value)
}

func docExampleEngineEnvironment(configuration: SessionConfiguration, store: any SessionStore) async throws {
    let environment = EngineEnvironment(clock: SystemClock(), log: SilentLogSink())
    let session = try Session(configuration: configuration, store: store, environment: environment)
    await session.start()
}

func docExampleSessionCancelLogin(session: Session) async {
    let login = Task { try await session.login() }
    // … the person presses Cancel:
    await session.cancelLogin()
    _ = await login.result               // .failure(VersolaError.recoverable(.userCancelled))
}

func docExampleSession(apiURL: URL) async throws {
    let storage = try SessionStorage.standard(profile: "work")
    let client = ClientConfiguration(issuer: "https://login.example.com", clientID: "my-app")
    let session = try Session(configuration: SessionConfiguration(client: client),
                              store: storage.store)
    await session.start()                           // disk only: works offline (T5)
    if session.state == .unauthenticated { try await session.login() }
    let response = try await session.send(HTTPRequest(url: apiURL))   // with a fresh access token
    print(response.status)
}

func docExampleGrantLifetime(session: Session) {
    switch session.grantLifetime {
    case .renewable?: print("renewed as needed")
    case .endsAt(let date)?: print("no refresh token; ends at \(date)")
    case .unbounded?: print("no refresh token; does not expire")
    case nil: print("signed out")
    }
}

func docExampleSessionConfiguration(issuer: String) throws {
    var configuration = SessionConfiguration(client: ClientConfiguration(issuer: issuer, clientID: "cli"))
    configuration.refreshMargin = .seconds(300)
    try configuration.validate()
}

// MARK: Sources/Versola/Storage

func docExampleFileSessionStore() async throws {
    let directories = try XDGDirectories.current()
    let store = try FileSessionStore(
        profile: "work", directory: directories.stateHome,
        keySource: KeyFileKeySource(directories: directories))
    let record = try await store.load()
    print(record?.subject ?? "nobody is signed in")
}

func docExamplePassphraseKeySource(directories: XDGDirectories, askUser: () -> String) async throws {
    let source = try PassphraseKeySource(profile: "work", directory: directories.stateHome)
    try await source.unlock(passphrase: askUser())
    let store = try FileSessionStore(profile: "work", directory: directories.stateHome, keySource: source)
    let record = try await store.load()
    print(record?.subject ?? "nobody is signed in")
}

func docExamplePassphrase(keyFileBytes: [UInt8], source: PassphraseKeySource) async throws {
    let passphrase = Passphrase(bytes: keyFileBytes)
    try await source.unlock(passphrase: passphrase)
}

func docExampleSessionRecord(response: TokenResponse, store: any SessionStore) async throws {
    var record = SessionRecord(issuer: "https://id.example", clientID: "cli")
    record.refreshToken = response.refreshToken
    try await store.save(record)
}

func docExampleSessionStorage(askUser: () -> String) async throws {
    let storage = try SessionStorage.standard(profile: "work", keySource: .passphrase)
    try await storage.passphraseKeySource?.unlock(passphrase: askUser())
    let record = try await storage.store.load()
    print(record?.subject ?? "nobody is signed in")
}

func docExampleSessionStore(store: any SessionStore, rotate: (String) async throws(VersolaError) -> String)
    async throws
{
    let refreshed = try await store.withExclusiveAccess { () async throws(VersolaError) -> SessionRecord? in
        guard var record = try await store.load(), let token = record.refreshToken else { return nil }
        record.refreshToken = try await rotate(token)   // re-read under the lock, then spend it
        try await store.save(record)
        return record
    }
    print(refreshed?.subject ?? "nobody is signed in")
}

// MARK: Sources/Versola/Tokens

func docExampleIDTokenValidator(
    configuration: ClientConfiguration, metadata: ProviderMetadata, keys: JWKSCache, clock: any VersolaClock,
    tokens: TokenResponse, pending: PendingAuthorization, keySet: JWKSet
) throws {
    let validator = IDTokenValidator(configuration: configuration, metadata: metadata, keys: keys, clock: clock)
    if let idToken = tokens.idToken {
        let claims = try validator.validate(idToken, keySet: keySet, nonce: pending.nonce, accessToken: tokens.accessToken)
        print("signed in as", claims.subject)
    }
}

func docExampleTokenResponse() {
    let tokens = TokenResponse(accessToken: "…", tokenType: .dpop, expiresIn: .seconds(300))
    if tokens.tokenType == .dpop, let lifetime = tokens.expiresIn {
        print("a DPoP-bound token, good for", lifetime)
    }
}

// MARK: Sources/VersolaHTTP (the types Versola re-exports)

func docExampleCurlTransport(url: URL) async throws {
    let transport = CurlTransport()
    let response = try await transport.send(HTTPRequest(url: url), options: TransportOptions())
    print(response.status)
}

func docExampleTransportOptions(configuration: SessionConfiguration, store: any SessionStore) async throws {
    var options = TransportOptions()
    options.totalTimeout = .seconds(5)
    options.allowConnectionReuse = false   // a code exchange must never be re-sent
    let session = try Session(configuration: configuration, store: store, environment: .system(transport: options))
    await session.start()
}

func docExampleProviderError() {
    let said = ProviderError(code: "invalid_request", description: "consent in prompt")
    print(said?.description ?? "")   // invalid_request: consent in prompt
}

func docExampleHTTPHeaders() {
    var headers = HTTPHeaders()
    headers.add("Accept", "application/json")
    print(headers["accept"] ?? "")   // application/json
}

func docExampleHTTPMethod(tokenEndpoint: URL, form: [UInt8]) {
    let request = HTTPRequest(method: .post, url: tokenEndpoint, body: form)
    print(request.method)
}

func docExampleHTTPRequest(jwksURL: URL) {
    var request = HTTPRequest(method: .get, url: jwksURL)
    request.headers.add("Accept", "application/json")
}

func docExampleVersolaClock(clock: any VersolaClock) async throws {
    let start = clock.monotonicNow
    try await clock.sleep(for: .milliseconds(250))
    let spent = clock.monotonicNow - start
    print("slept for", spent)
}

// MARK: Sources/VersolaHTTP, files another change is moving (examples checked as they stand)

func docExampleRetryPolicy() throws {
    let policy = RetryPolicy(maxAttempts: 5, totalBudget: .seconds(30))
    try policy.validate()
}
