import VersolaHTTP
import Foundation
import Synchronization
import VersolaCrypto

/// One signed-in (or not) user of one client at one provider, under one profile: the API
/// applications embed.
///
/// The session restores from its store without the network, publishes its state, keeps the
/// access token in memory only (P4), refreshes before expiry, and follows every change another
/// process makes to the same profile (S11): a login, refresh or logout done elsewhere is seen
/// within milliseconds and published once. Every public failure is a ``VersolaError``.
///
/// Its transitions are a pure state machine (`SessionMachine`, inside the engine); the actor only
/// carries out what the machine returns.
///
/// ```swift
/// let storage = try SessionStorage.standard(profile: "work")
/// let client = ClientConfiguration(issuer: "https://login.example.com", clientID: "my-app")
/// let session = try Session(configuration: SessionConfiguration(client: client),
///                           store: storage.store)
/// await session.start()                           // disk only: works offline (T5)
/// if session.state == .unauthenticated { try await session.login() }
/// let response = try await session.send(HTTPRequest(url: apiURL))   // with a fresh access token
/// print(response.status)
/// ```
public actor Session {
    /// The validated configuration.
    public nonisolated let configuration: SessionConfiguration
    /// The authorization engine the session drives (its own; applications talk to the session).
    package nonisolated let client: OpenIDClient
    let store: any SessionStore
    let browser: any BrowserLauncher
    let publisher = StatePublisher(state: .unauthenticated)
    var machine: SessionMachine
    /// The refresh in flight, shared by every caller (T2).
    var refreshFlight = SingleFlight<Grant>()
    /// The held token and the clock verdict, mirrored for the fast path that takes no actor hop.
    nonisolated let tokenCache = Mutex<TokenCache>(TokenCache())
    var started = false
    /// The store's generation this session last read or wrote (S11).
    var knownGeneration: UInt64 = 0
    /// Follows the store's changes once started.
    var following: Task<Void, Never>?
    /// Tries the record the machine holds back (P10) again until it is written.
    var unsavedRetry: Task<Void, Never>?
    /// The token endpoint's answer to the refresh in flight, until it is checked.
    var refreshAnswer: RefreshAnswer?
    /// This session's own critical sections on the store in progress: a change notice that
    /// arrives meanwhile is looked at once they end (it may be this session's own write).
    var ownSections = 0
    var changeDeferred = false

    struct TokenCache: Sendable {
        var held: HeldAccessToken?
        /// `held` as callers see it (type, expiry), for ``Session/servableAccessToken()``.
        var described: AccessToken?
        /// The lookup in flight that may serve the cached token, and the one that forces a
        /// refresh (T4: a forced caller joins only a forced lookup; any caller may join one).
        private var lookup = SingleFlight<String>()
        private var forcedLookup = SingleFlight<String>()

        /// The lookup in flight that a caller joins, or `work` started now.
        mutating func joinLookup(
            forced: Bool, or work: @escaping @Sendable () async -> Result<String, VersolaError>
        ) -> SingleFlight<String>.Work {
            if let shared = forcedLookup.current ?? (forced ? nil : lookup.current) { return shared }
            return forced ? forcedLookup.join(or: work) : lookup.join(or: work)
        }

        /// Ends the lookup started by a caller that did (`forced`) or did not force a refresh.
        mutating func endLookup(forced: Bool) {
            if forced { forcedLookup.end() } else { lookup.end() }
        }
        var freshness = AccessTokenFreshness(margin: .zero)
    }

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
        self.machine = SessionMachine(refreshMargin: configuration.refreshMargin)
    }

    deinit {
        following?.cancel()
        unsavedRetry?.cancel()
    }

    // MARK: Observing

    /// The current state, read without waiting and without the network (T5).
    public nonisolated var state: SessionState { publisher.state }

    /// Who is signed in, read without waiting and without the network (T5).
    public nonisolated var user: SessionUser? { publisher.user }

    /// How the held grant's tokens are presented (Bearer or DPoP), read without waiting; nil
    /// when signed out.
    public nonisolated var grantTokenType: TokenType? { publisher.tokenType }

    /// How long the held grant lasts without a new sign-in (P13: a grant without a refresh token
    /// ends with its access token), read without waiting; nil when signed out.
    public nonisolated var grantLifetime: GrantLifetime? { publisher.lifetime }

    /// Why the stored session could not be read, when it could not (E9, S13): the record that
    /// does not decrypt, or the key source that failed, in plain words. Nil when it was read.
    public nonisolated var storageProblem: String? { publisher.problem }

    /// Earlier records that no longer decrypted, moved aside (user-only) by the sign-in that
    /// replaced them (P12): paths to inspect or delete. Read without waiting.
    public nonisolated var setAsideRecords: [String] { publisher.setAside }

    /// Every state change (S3): the first value is the current state, and no value repeats
    /// the one before it (T6).
    public nonisolated func states() -> AsyncStream<SessionState> {
        publisher.stream()
    }

    // MARK: Lifecycle

    /// Restores the stored session from disk only (T5, P2, P3, S10), then follows the
    /// profile's changes by other processes (S11). Never fails: a locked store gives
    /// `locked`; a record that cannot be decrypted gives `unauthenticated` and is kept on disk
    /// until the next successful login replaces it (E9). Calling it again does nothing.
    public func start() async {
        guard !started else { return }
        started = true
        let changes = store.changes()
        await restore()
        following = Task { [weak self] in
            for await generation in changes {
                await self?.storeMayHaveChanged(generation)
            }
        }
    }

    /// Call after the key source was unlocked (S10, S13): the session returns to the state the
    /// lock interrupted, or reads the store when it was locked from the start. Does nothing in
    /// any other state.
    public func unlocked() async {
        await perform(apply(.storageUnlocked))
    }

    /// Reads the store and applies it as the startup state.
    func restore() async {
        knownGeneration = await store.generation()
        let (stored, record) = await readStore()
        if case .grant = stored, let record { client.dpopNonces.restore(record.dpopNonces) }
        await perform(apply(.restored(stored)))
    }

    /// What the store holds now, as the machine reads it. Why it could not be read, when it
    /// could not, is published as ``storageProblem`` (the machine keeps it for the next
    /// operation's error).
    func readStore() async -> (StoredSession, SessionRecord?) {
        let record: SessionRecord?
        let setAside = await store.setAsideRecords()
        do {
            record = try await store.load()
            publisher.setProblem(nil, setAside: setAside)
        } catch .recoverable(.unlockRequired) {
            return (.locked, nil)
        } catch {
            switch error {
            case .reauthenticate(.credentialsInvalidated):
                // P12: a sign-in does fix this one (it moves the record aside), so saying so is right.
                publisher.setProblem(
                    "\(store.recordDescription) does not decrypt with the current key (the key changed or was lost, "
                        + "or the file was altered); it stays as it is until a sign-in succeeds, which moves it aside",
                    setAside: setAside)
            default:
                publisher.setProblem("\(store.recordDescription) could not be read: \(error)", setAside: setAside)
            }
            return (.unreadable(error), nil)
        }
        guard let record, record.issuer == configuration.client.issuer, record.clientID == configuration.client.clientID
        else { return (.empty, nil) }
        if let grant = record.grant, record.refreshToken != nil || record.accessToken != nil || record.pendingRequest == nil {
            // P13: a grant without a refresh token is served from its stored access token.
            return (
                .grant(
                    grant, refreshing: record.refreshInFlight != nil, hasPendingRequest: record.pendingRequest != nil,
                    token: held(grant).token),
                record
            )
        }
        if let request = record.pendingRequest {
            let expired = request.isExpired(at: client.environment.clock.wallClockNow)
            return (expired ? .expiredPendingRequest : .pendingRequest(request), record)
        }
        return (.empty, record)
    }

    /// Calls before ``start()`` are a programming error, said plainly.
    func checkStarted() throws(VersolaError) {
        guard started else {
            throw .configuration(.invalidConfiguration("Session.start() must be called before this operation"))
        }
    }

    func checkUnlocked() throws(VersolaError) {
        try checkStarted()
        if state == .locked { throw .recoverable(.unlockRequired) }
    }

    // MARK: Machine

    /// Applies an event, mirrors the machine's data for the lock-free readers, and publishes.
    @discardableResult
    func apply(_ event: SessionEvent) -> SessionOutcome {
        let outcome = machine.handle(event)
        let held = machine.heldGrant
        publisher.setUser(
            held.flatMap { $0.grant.claims.map(SessionUser.init) }, tokenType: held?.grant.tokenType,
            lifetime: held.flatMap(GrantLifetime.init))
        let serving: Bool
        switch machine.state {
        case .authenticated, .refreshing, .stepUpRequired: serving = true
        case .unauthenticated, .authorizing, .locked, .loggingOut: serving = false
        }
        let freshness = machine.freshness
        tokenCache.withLock { cache in
            cache.held = serving ? held?.token : nil
            cache.described = serving ? held?.accessToken : nil
            cache.freshness = freshness
        }
        for case .publish(let state) in outcome.actions { publisher.publish(state) }
        return outcome
    }

    /// The one executor: carries out the machine's actions in order, and those of the events
    /// they lead to, and returns what the operation that applied the event goes on with.
    /// (`publish` was done by ``apply(_:)``, so that observers see a state the moment the
    /// machine takes it; `keepPendingRequest` leaves the stored request as it is, and
    /// `requestDeviceAuthorization` leaves ``SessionEffects/resumedDevice`` empty: the device
    /// login asks for a new code.)
    @discardableResult
    func perform(_ outcome: SessionOutcome) async -> SessionEffects {
        var effects = SessionEffects()
        for action in outcome.actions {
            switch action {
            case .publish, .keepPendingRequest, .requestDeviceAuthorization:
                break
            case .refresh(let step):
                if let event = await refreshStep(step) {
                    effects.refreshEvent = event
                    return effects
                }
            case .refreshEnded(let result, let kept):
                effects.refreshEnded = (result, kept)
            case .pollDeviceAuthorization(let device):
                effects.resumedDevice = device
            case .openEndSession(let hint):
                effects.endSession = await openEndSession(idTokenHint: hint)
            case .wipeCredentials:
                try? await wipeStore()
            case .retryHeldBack:
                scheduleUnsavedRetry()
            case .stopRetryingHeldBack:
                unsavedRetry?.cancel()
                unsavedRetry = nil
            case .discardPendingRequest:
                try? await write { record in
                    guard var record, record.pendingRequest != nil else { return record }
                    record.pendingRequest = nil
                    return record.holdsGrant ? record : nil
                }
            case .restore:
                await restore()
            case .revoke(let grant):
                _ = await client.revoke(grant)
            case .endLiveLogin, .cancelLiveLogin:
                await client.cancelLogin()
            case .wipeForLogout(let inMemory, let endSession):
                let newest = await wipeForLogout()
                effects.add(await perform(apply(.logoutFinished(newest: newest, inMemory: inMemory, endSession: endSession))))
            }
        }
        return effects
    }

    /// Changes the stored record under the profile lock: `change` gets the newest record and
    /// returns the one to store (nil wipes). The generation this process knows moves with it.
    /// With `replacingUnreadable`, a record that does not decrypt counts as none: the store
    /// moves it aside when it saves (P12); otherwise it fails the write.
    func write(
        replacingUnreadable: Bool = false, _ change: (SessionRecord?) async throws(VersolaError) -> SessionRecord?
    ) async throws(VersolaError) {
        try await exclusively { () throws(VersolaError) in
            let current = try await loadForWrite(replacingUnreadable: replacingUnreadable)
            let updated = try await change(current)
            if updated == current { return }
            if let updated { try await store.save(updated) } else { try await store.wipe() }
            knownGeneration = await store.generation()
        }
    }

    private func loadForWrite(replacingUnreadable: Bool) async throws(VersolaError) -> SessionRecord? {
        do {
            return try await store.load()
        } catch {
            if replacingUnreadable && error == .reauthenticate(.credentialsInvalidated) { return nil }
            throw error
        }
    }

    /// Removes the stored record under the profile lock, whatever it holds; works while the
    /// key source is locked and when the record does not decrypt (S7, S9).
    func wipeStore() async throws(VersolaError) {
        try await exclusively { () throws(VersolaError) in
            try await store.wipe()
            knownGeneration = await store.generation()
        }
    }

    /// Runs `body` under the profile lock as this session's own section: change notices that
    /// arrive meanwhile wait until it ends, so this session never mistakes its own write,
    /// half done, for another process's.
    func exclusively<R>(_ body: () async throws(VersolaError) -> R) async throws(VersolaError) -> R {
        ownSections += 1
        defer {
            ownSections -= 1
            if ownSections == 0 && changeDeferred {
                changeDeferred = false
                Task { await self.storeMayHaveChanged(nil) }
            }
        }
        return try await store.withExclusiveAccess(body)
    }
}
