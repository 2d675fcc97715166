import Foundation
import Synchronization
import VersolaCrypto

/// One signed-in (or not) user of one client at one provider, under one profile: the API
/// applications embed.
///
/// The session owns its state machine (S1–S10), its stored record (P1–P9) and the access
/// token in memory (P4). Every public failure is a ``VersolaError``.
///
/// ```swift
/// let session = try Session(configuration: SessionConfiguration(client: client, profile: "work"),
///                           store: FileSessionStore(profile: "work"))
/// await session.start()                           // disk only: works offline (T5)
/// for await state in session.states() { print(state) }
/// if session.state == .unauthenticated { try await session.login() }
/// let token = try await session.accessToken()
/// let response = try await session.send(HTTPRequest(url: api))
/// ```
public actor Session {
    /// The validated configuration.
    public nonisolated let configuration: SessionConfiguration
    /// The authorization engine.
    public nonisolated let client: OpenIDClient
    private let store: any SessionStore
    private let browser: any BrowserLauncher
    private let publisher = StatePublisher(state: .unauthenticated)
    private var machine = SessionMachine()
    private var grant: Grant?
    private var held: HeldAccessToken?
    private var freshness: AccessTokenFreshness
    private var pending: PendingAuthorization?
    private var refreshInProgress: Task<Grant, any Error>?
    /// The held token and the clock verdict state, mirrored for the lock-free-of-actor fast path.
    private nonisolated let tokenCache = Mutex<TokenCache>(TokenCache())

    private struct TokenCache: Sendable {
        var held: HeldAccessToken?
        /// The token lookups in flight, by whether they force a refresh.
        var pending: [Bool: Task<String, any Error>] = [:]
        var freshness = AccessTokenFreshness(margin: .zero)
    }
    private var started = false

    /// Creates a session; nothing is read or sent until ``start()``.
    /// - Throws: `.configuration(.invalidConfiguration)` for a bad configuration (R2).
    public init(
        configuration: SessionConfiguration, store: any SessionStore, environment: EngineEnvironment? = nil,
        browser: any BrowserLauncher = SystemBrowser()
    ) throws(VersolaError) {
        try configuration.validate()
        self.configuration = configuration
        self.store = store
        self.browser = browser
        self.client = try OpenIDClient(configuration: configuration.client, environment: environment, browser: browser)
        self.freshness = AccessTokenFreshness(margin: configuration.refreshMargin)
    }

    // MARK: Observing

    /// The current state, read without waiting and without the network (T5).
    public nonisolated var state: SessionState { publisher.state }

    /// Who is signed in, read without waiting and without the network (T5).
    public nonisolated var user: SessionUser? { publisher.user }

    /// Every state change (S3). The first value is the current state.
    public nonisolated func states() -> AsyncStream<SessionState> {
        publisher.stream()
    }

    // MARK: Lifecycle

    /// Restores the stored session from disk only (T5, P2, P3, S10). Never fails: a locked
    /// store gives `locked`; a record that cannot be decrypted gives `unauthenticated` and is
    /// kept on disk until the next successful login replaces it (E9).
    public func start() async {
        started = true
        await restore()
    }

    /// Unlocks after the key source was unlocked (S10): reads the store again.
    public func unlocked() async {
        _ = apply(.storageUnlocked)
        await restore()
    }

    private func restore() async {
        let record: SessionRecord?
        do {
            record = try await store.load()
        } catch .recoverable(.unlockRequired) {
            _ = apply(.restored(.locked))
            return
        } catch {
            // Undecryptable or unreadable: signed out, the file left for inspection (E9).
            clearMemory()
            _ = apply(.restored(.empty))
            return
        }
        guard let record, record.issuer == configuration.client.issuer, record.clientID == configuration.client.clientID
        else {
            clearMemory()
            _ = apply(.restored(.empty))
            return
        }
        if let refreshToken = record.refreshToken, let idToken = record.idToken,
            let claims = IDTokenClaims(restoringValidated: idToken)
        {
            grant = Grant(
                accessToken: "", tokenType: record.dpopPrivateKey == nil ? .bearer : .dpop, expiresAt: nil,
                refreshToken: refreshToken, idToken: idToken, claims: claims, scope: nil,
                dpopKey: record.dpopPrivateKey.flatMap { try? DPoPKey(rawRepresentation: $0) })
            held = nil
            publisher.setUser(SessionUser(claims))
            client.dpopNonces.restore(record.dpopNonces)
            await perform(apply(.restored(.grant(hasPendingRequest: record.pendingAuthorization != nil))))
        } else if let request = record.pendingAuthorization {
            pending = request
            if request.isExpired(at: client.environment.clock.wallClockNow) {
                await perform(apply(.restored(.expiredPendingRequest)))
            } else {
                _ = apply(.restored(.pendingRequest))
            }
        } else {
            clearMemory()
            _ = apply(.restored(.empty))
        }
    }

    // MARK: Authorization

    /// Signs in through the browser (S4). Over a live session, a failure keeps that session (S4, P9).
    /// - Parameters:
    ///   - parameters: extra authorization parameters.
    ///   - present: called once the browser was (or could not be) started, to show the URL (L1).
    /// - Throws: any `VersolaError`; `.recoverable(.unlockRequired)` while locked.
    public func login(
        _ parameters: AuthorizationParameters = AuthorizationParameters(),
        present: (@Sendable (AuthorizationPrompt) async -> Void)? = nil
    ) async throws(VersolaError) {
        try await authorize(parameters, event: .loginStarted, present: present)
    }

    /// Answers a step-up challenge with a new authorization carrying its `acr_values` and
    /// `max_age` (S5).
    public func stepUp(
        _ challenge: StepUpChallenge, present: (@Sendable (AuthorizationPrompt) async -> Void)? = nil
    ) async throws(VersolaError) {
        try await authorize(AuthorizationParameters(stepUp: challenge), event: .stepUpStarted, present: present)
    }

    private func authorize(
        _ parameters: AuthorizationParameters, event: SessionEvent,
        present: (@Sendable (AuthorizationPrompt) async -> Void)?
    ) async throws(VersolaError) {
        try checkUnlocked()
        let actions = apply(event)
        guard !actions.isEmpty else {
            throw .configuration(.invalidConfiguration("cannot start a login while \(state)"))
        }
        do {
            let store = self.store
            // A key made here (not inside the client) can be stored with the pending request,
            // so a redirect delivered after a restart can still finish the login (P1, P2, D1).
            let key = configuration.client.usesDPoP ? try DPoPKey.generate() : nil
            let newGrant = try await client.login(
                parameters, timeout: configuration.loginTimeout, dpopKey: key,
                onPending: { request in
                    // P1: the pending request is on disk before the browser opens. Over a live
                    // grant the grant's own key keeps its slot (P9); such a re-login cannot be
                    // resumed by another process, only completed by this one.
                    try? await store.withExclusiveAccess { () throws(VersolaError) in
                        var record = try await store.load() ?? SessionRecord(issuer: request.issuer, clientID: request.clientID)
                        record.pendingAuthorization = request
                        if record.refreshToken == nil { record.dpopPrivateKey = key?.rawRepresentation }
                        try await store.save(record)
                    }
                }, present: present)
            try await adopt(newGrant)
        } catch {
            await perform(apply(.authorizationFailed(error)))
            throw error
        }
    }

    /// Delivers a redirect to the login in progress or to a pending request restored from
    /// disk (P2, L2): pasted by the person, or handed over by another process.
    public func deliverRedirect(_ url: String) async throws(VersolaError) {
        if await client.deliverRedirect(url) { return }
        try checkUnlocked()
        guard let pending, state == .authorizing else {
            throw .recoverable(.pendingRequestExpired)
        }
        if pending.isExpired(at: client.environment.clock.wallClockNow) {
            await perform(apply(.pendingExpired))
            throw .recoverable(.pendingRequestExpired)
        }
        do {
            let redirect = try AuthorizationRedirect(url: url)
            let metadata = try await client.metadata()
            let storedKey = try await store.load()?.dpopPrivateKey
            let key = try storedKey.map { (raw) throws(VersolaError) in try DPoPKey(rawRepresentation: raw) }
            let newGrant = try await client.complete(
                redirect, pending: pending, issuerParameterRequired: metadata.authorizationResponseIssParameterSupported,
                dpopKey: key)
            try await adopt(newGrant)
        } catch {
            await perform(apply(.authorizationFailed(error)))
            throw error
        }
    }

    /// P9: everything validated; swap identities in one write, then publish.
    private func adopt(_ newGrant: Grant) async throws(VersolaError) {
        let record = SessionRecord(
            issuer: configuration.client.issuer, clientID: configuration.client.clientID,
            subject: newGrant.claims.subject, refreshToken: newGrant.refreshToken, idToken: newGrant.idToken,
            dpopPrivateKey: newGrant.dpopKey?.rawRepresentation, dpopNonces: client.dpopNonces.snapshot())
        try await store.withExclusiveAccess { () throws(VersolaError) in try await store.save(record) }
        grant = newGrant
        pending = nil
        hold(newGrant)
        publisher.setUser(SessionUser(newGrant.claims))
        await perform(apply(.authorizationSucceeded))
    }

    // MARK: Tokens

    /// A valid access token (T1): the cached one while it has more than the margin left,
    /// else a refreshed one. Never an expired token.
    ///
    /// The cached path takes no actor hop (a lock-protected read), and callers waiting for a
    /// refresh in flight wait outside the actor, so a thousand of them resume in parallel.
    /// - Parameter forceRefresh: skip the cache (not the single flight nor the R8 cooldown, T4).
    /// - Throws: `.reauthenticate(.sessionExpired)` when there is no grant or it cannot be
    ///   renewed without a person (S8); the refresh's errors otherwise.
    public nonisolated func accessToken(forceRefresh: Bool = false) async throws(VersolaError) -> String {
        if !forceRefresh, let token = servableCachedToken() { return token }
        // Callers that miss the cache share one task: only it queues on the actor; the others
        // wait for it in parallel (T2). A forced caller joins only a forced task (T4).
        let task = tokenCache.withLock { cache -> Task<String, any Error> in
            if let shared = cache.pending[true] ?? (forceRefresh ? nil : cache.pending[false]) { return shared }
            let created = Task { () async throws -> String in
                defer { self.tokenCache.withLock { $0.pending[forceRefresh] = nil } }
                switch try await self.accessTokenSlowPath(forceRefresh: forceRefresh) {
                case .token(let value): return value
                case .refreshing(let refresh): return try await refresh.value.accessToken
                }
            }
            cache.pending[forceRefresh] = created
            return created
        }
        do { return try await task.value } catch { throw Self.versolaError(error) }
    }

    /// The cached token when it may be served now, read without the actor.
    private nonisolated func servableCachedToken() -> String? {
        let state = publisher.state
        guard state.holdsGrant, state != .locked, state != .loggingOut,
            let (held, freshness) = tokenCache.withLock({ cache in cache.held.map { ($0, cache.freshness) } })
        else { return nil }
        let clock = client.environment.clock
        guard freshness.verdict(for: held, monotonicNow: clock.monotonicNow, wallNow: clock.wallClockNow) == .serve
        else { return nil }
        return held.value
    }

    private enum TokenSource {
        case token(String)
        case refreshing(Task<Grant, any Error>)
    }

    private func accessTokenSlowPath(forceRefresh: Bool) async throws(VersolaError) -> TokenSource {
        try checkUnlocked()
        guard let grant, state.holdsGrant else { throw .reauthenticate(.sessionExpired) }
        if !forceRefresh, let held {
            let clock = client.environment.clock
            switch freshness.verdict(for: held, monotonicNow: clock.monotonicNow, wallNow: clock.wallClockNow) {
            case .serve: return .token(held.value)
            case .deadlinesDisagree:
                let renewed = try await refresh(from: grant)
                if let fresh = self.held {
                    freshness.checkFreshToken(fresh, monotonicNow: clock.monotonicNow, wallNow: clock.wallClockNow)
                    publishTokenCache()
                }
                return .token(renewed.accessToken)
            case .expired: break
            }
        }
        return .refreshing(try await refreshTask(from: grant))
    }

    /// One refresh at a time (T2): concurrent callers share the one in flight.
    private func refresh(from current: Grant) async throws(VersolaError) -> Grant {
        let task = try await refreshTask(from: current)
        do { return try await task.value } catch { throw Self.versolaError(error) }
    }

    /// The refresh in flight, or a new one (S8: none without a refresh token).
    private func refreshTask(from current: Grant) async throws(VersolaError) -> Task<Grant, any Error> {
        if let refreshInProgress { return refreshInProgress }
        guard current.refreshToken != nil else {
            await perform(apply(.grantExpiredWithoutRefreshToken))
            throw .reauthenticate(.sessionExpired)
        }
        let task = Task { () async throws -> Grant in
            defer { self.refreshFinished() }
            return try await self.performRefresh(from: current)
        }
        refreshInProgress = task
        return task
    }

    private func refreshFinished() {
        refreshInProgress = nil
    }

    private func performRefresh(from current: Grant) async throws(VersolaError) -> Grant {
        _ = apply(.refreshStarted)
        do throws(VersolaError) {
            let renewed = try await store.withExclusiveAccess { () throws(VersolaError) -> Grant in
                var record = try await store.load()
                    ?? SessionRecord(issuer: configuration.client.issuer, clientID: configuration.client.clientID)
                var base = current
                if let stored = record.refreshToken, stored != current.refreshToken {
                    // T2: another process rotated the token while we waited; use theirs, never replay ours.
                    base.refreshToken = stored
                    if let raw = record.dpopPrivateKey { base.dpopKey = try? DPoPKey(rawRepresentation: raw) }
                }
                guard let refreshToken = base.refreshToken else { throw .reauthenticate(.sessionExpired) }
                if let marker = record.refreshInFlight, marker.concerns(refreshToken: refreshToken) {
                    client.environment.log.record(
                        VersolaLogEvent(.warning, "a previous refresh of this token did not finish; trying it once more"))
                }
                record.refreshInFlight = RefreshInFlight(refreshToken: refreshToken, startedAt: client.environment.clock.wallClockNow)
                try await store.save(record)
                let renewed: Grant
                do throws(VersolaError) {
                    renewed = try await client.refresh(base)
                } catch {
                    if Self.nothingWasProcessed(error) {
                        record.refreshInFlight = nil
                        try? await store.save(record)
                    }
                    throw error
                }
                // P7: the rotated token is on disk before anyone gets the new access token.
                record.refreshToken = renewed.refreshToken
                record.idToken = renewed.idToken
                record.subject = renewed.claims.subject
                record.dpopPrivateKey = renewed.dpopKey?.rawRepresentation
                record.dpopNonces = client.dpopNonces.snapshot()
                record.refreshInFlight = nil
                try await store.save(record)
                return renewed
            }
            grant = renewed
            hold(renewed)
            publisher.setUser(SessionUser(renewed.claims))
            await perform(apply(.refreshSucceeded))
            return renewed
        } catch {
            await perform(apply(.refreshFailed(error)))
            throw error
        }
    }

    /// Whether a failed refresh provably never reached the provider (R6), so its in-flight
    /// note can go.
    private static func nothingWasProcessed(_ error: VersolaError) -> Bool {
        switch error {
        case .recoverable(.network(let failure)): !failure.requestBytesWritten
        case .recoverable(.server(let failure)): [408, 429, 503].contains(failure.status)
        case .reauthenticate: true
        default: false
        }
    }

    private func hold(_ grant: Grant) {
        let clock = client.environment.clock
        let lifetime = grant.expiresAt.map { Duration.seconds($0.timeIntervalSince(clock.wallClockNow)) }
        held = HeldAccessToken(value: grant.accessToken, expiresIn: lifetime, mintedAt: clock.monotonicNow)
        publishTokenCache()
    }

    private func publishTokenCache() {
        let (held, freshness) = (held, freshness)
        tokenCache.withLock { cache in
            cache.held = held
            cache.freshness = freshness
        }
    }

    // MARK: Resources

    /// The UserInfo claims (A8), refreshing once on a 401.
    public func userInfo() async throws(VersolaError) -> UserInfo {
        _ = try await accessToken()
        guard let grant else { throw .reauthenticate(.sessionExpired) }
        do {
            return try await client.userInfo(grant)
        } catch .reauthenticate(.sessionRejected) {
            let renewed = try await refresh(from: grant)
            return try await client.userInfo(renewed)
        }
    }

    /// Sends an application request with the access token (and DPoP proof): a 401 gets one
    /// refresh and one replay, a second 401 is `reauthenticate(sessionRejected)` (E10); a
    /// 401 with `insufficient_user_authentication` is `stepUp(challenge)` and the
    /// `stepUpRequired` state (S5, A10). Every other status is returned (E10, R7).
    public func send(_ request: HTTPRequest) async throws(VersolaError) -> HTTPResponse {
        _ = try await accessToken()
        guard let current = grant else { throw .reauthenticate(.sessionExpired) }
        let first = try await client.send(request, grant: current)
        guard first.status == 401 else { return first }
        if let challenge = WWWAuthenticate(headers: first.headers).stepUpChallenge {
            await perform(apply(.stepUpDemanded(challenge)))
            throw .stepUp(challenge)
        }
        let renewed = try await refresh(from: current)
        let second = try await client.send(request, grant: renewed)
        guard second.status == 401 else { return second }
        if let challenge = WWWAuthenticate(headers: second.headers).stepUpChallenge {
            await perform(apply(.stepUpDemanded(challenge)))
            throw .stepUp(challenge)
        }
        throw .reauthenticate(.sessionRejected)
    }

    // MARK: Logout

    /// Signs out (S9): revokes the refresh token fire-and-forget (A9), optionally opens the
    /// end-session page, and wipes everything local, including the DPoP key (P6), even
    /// offline or locked. Never fails.
    public func logout(endSession: Bool = false) async {
        let ending = grant
        _ = apply(.logoutStarted)
        if let ending {
            await client.revoke(ending)
            if endSession { await openEndSession(for: ending) }
        }
        await perform(apply(.logoutFinished))
    }

    /// Opens the provider's end-session page (RP-Initiated Logout) with the ID token as hint;
    /// a missing endpoint or browser changes nothing (S9).
    private func openEndSession(for grant: Grant) async {
        guard let metadata = try? await client.metadata(), let endpoint = metadata.endSessionEndpoint else { return }
        let query = FormBody([
            FormBody.Field(name: "id_token_hint", value: grant.idToken),
            FormBody.Field(name: "client_id", value: configuration.client.clientID),
        ])
        let base = endpoint.absoluteString
        _ = await browser.open(base + (base.contains("?") ? "&" : "?") + query.encodedString)
    }

    // MARK: Machine

    private func apply(_ event: SessionEvent) -> [SessionAction] {
        let actions = machine.handle(event)
        for case .publish(let state) in actions { publisher.publish(state) }
        return actions
    }

    private func perform(_ actions: [SessionAction]) async {
        for action in actions {
            switch action {
            case .publish: break
            case .wipeCredentials:
                clearMemory()
                try? await store.withExclusiveAccess { () throws(VersolaError) in try await store.wipe() }
            case .discardPendingRequest:
                pending = nil
                try? await store.withExclusiveAccess { () throws(VersolaError) in
                    guard var record = try await store.load(), record.pendingAuthorization != nil else { return }
                    record.pendingAuthorization = nil
                    if record.refreshToken == nil && record.idToken == nil {
                        try await store.wipe()
                    } else {
                        try await store.save(record)
                    }
                }
            case .keepPendingRequest: break
            }
        }
    }

    private func clearMemory() {
        grant = nil
        held = nil
        tokenCache.withLock { $0.held = nil }
        pending = nil
        publisher.setUser(nil)
    }

    private func checkUnlocked() throws(VersolaError) {
        if state == .locked { throw .recoverable(.unlockRequired) }
    }

    private static func versolaError(_ error: any Error) -> VersolaError {
        (error as? VersolaError) ?? .recoverable(.systemCancelled)
    }
}
