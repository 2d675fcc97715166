import Foundation
import Synchronization
import Versola
import VersolaHTTP
import VersolaJOSE

/// Holds one ``Session`` per profile location and answers ``AgentRequest``s with it. The
/// session agent runs one host for the user (so access tokens stay in memory across commands,
/// P4, and concurrent callers share one refresh, T2); a command run with `--no-agent` uses a
/// host of its own, backed by the same store and its cross-process lock.
///
/// A profile location is the caller's config and state directories and the profile name
/// (S11): two callers with different `XDG_CONFIG_HOME` or `XDG_STATE_HOME` never share a
/// session. Each session follows its store, so a login, refresh or logout by any other
/// process is seen without asking the provider.
public actor SessionHost {
    /// Where one profile lives.
    public struct Location: Sendable, Hashable {
        /// The caller's XDG directories.
        public var directories: XDGDirectories
        /// The profile name.
        public var profile: String
    }

    private let environment: [String: String]
    private let engine: EngineEnvironment?
    private let passphrase: ProfileStorage.PassphraseSupplier?
    /// Where the agent renews access tokens (a process of its own); nil renews them here.
    private let refreshChild: RefreshChild?
    /// The refresh process running for each location, shared by its callers (T2).
    private var childRefreshes: [Location: Task<Result<AgentTokenResult, VersolaError>, Never>] = [:]
    /// One profile's session, its store, and the restore that makes it ready.
    private struct Entry {
        var session: Session
        var settings: ProfileSettings
        var storage: ProfileStorage
        var ready: Task<Void, Never>
    }

    private var entries: [Location: Entry] = [:]
    /// What a warm `token` reads without entering this actor (``answerWarm(_:)``), and when each
    /// location was last asked for.
    private nonisolated let index = Mutex(WarmIndex())
    /// How many locations keep a session (``AgentLimits/maximumSessions`` in the agent).
    private let capacity: Int
    private var forwarders: [Location: Task<Void, Never>] = [:]
    private var watchers: [Location: [UUID: AsyncStream<SessionState>.Continuation]] = [:]
    private var lastBroadcast: [Location: SessionState] = [:]

    /// Creates a host; requests without directories use the XDG directories of `environment`.
    /// - Parameters:
    ///   - engine: the engine environment for new sessions (the system's when nil).
    ///   - passphrase: asks for a passphrase profile's passphrase when a key is first needed (a
    ///     command's own host); nil for the agent, which waits for `versola unlock`.
    ///   - capacity: how many locations keep a session; past it the least recently used one
    ///     without watchers is dropped.
    ///   - refreshChild: the agent's refresh process (``RefreshChild``); nil refreshes here.
    init(
        environment: [String: String], engine: EngineEnvironment? = nil, passphrase: ProfileStorage.PassphraseSupplier?,
        capacity: Int = AgentLimits.maximumSessions, refreshChild: RefreshChild? = nil
    ) {
        self.environment = environment
        self.engine = engine
        self.passphrase = passphrase
        self.refreshChild = refreshChild
        self.capacity = max(1, capacity)
    }

    /// Creates a host that asks for no passphrase (as the agent: a passphrase profile stays
    /// `locked` until `versola unlock`); requests without directories use those of `environment`.
    /// - Parameter engine: the engine environment for new sessions (the system's when nil).
    public init(environment: [String: String], engine: EngineEnvironment? = nil) {
        self.init(environment: environment, engine: engine, passphrase: nil)
    }

    /// Answers one request.
    public func handle(_ request: AgentRequest) async -> AgentReply {
        do {
            return try await perform(request)
        } catch {
            return .failure(error)
        }
    }

    /// The location a request speaks for.
    public nonisolated func location(of request: AgentRequest) throws(VersolaError) -> Location {
        if let directories = request.directories {
            // A caller's paths that are not UTF-8 reach here as U+FFFD: never one home for two.
            try XDGDirectories.requireIntact(directories.stateHome.path, name: "XDG_STATE_HOME")
            try XDGDirectories.requireIntact(directories.configHome.path, name: "XDG_CONFIG_HOME")
            return Location(directories: directories, profile: request.profile)
        }
        return Location(directories: try XDGDirectories.current(environment: environment), profile: request.profile)
    }

    /// The answer to a `token` request from the access token the location's session holds,
    /// taken without entering this actor or the session's and without reading the profile file,
    /// as long as that file (and its folders) did not change since the session was confirmed
    /// for it; nil when the request must be answered by ``handle(_:)``.
    public nonisolated func answerWarm(_ request: AgentRequest) -> AgentReply? {
        if case .credential(let arguments) = request.call { return answerWarmCredential(arguments, request) }
        guard case .token(let arguments) = request.call, !arguments.forceRefresh,
            let location = try? location(of: request),
            let generation = ProfileGeneration(location.directories, profile: location.profile),
            let session = index.withLock({ $0.warmSession(at: location, generation: generation) }),
            let token = session.servableAccessToken()
        else { return nil }
        return Self.tokenReply(AgentTokenResult(token), arguments, profile: location.profile)
    }

    /// The answer for a token: the result, or what `versola token` prints when asked to.
    private static func tokenReply(_ result: AgentTokenResult, _ arguments: AgentTokenArguments, profile: String) -> AgentReply {
        arguments.print.map { $0.reply(for: result, profile: profile) } ?? .ok(result)
    }

    private func perform(_ request: AgentRequest) async throws(VersolaError) -> AgentReply {
        switch request.call {
        case .ping, .stop:
            return .ok(AgentAcknowledgement.pid(Int64(getpid())))
        case .credential(let arguments):
            return await credential(arguments, request)
        case .reload:
            let (session, _) = try await session(for: location(of: request))
            await session.reloadFromStore()
            return .ok(AgentAcknowledgement.reloaded(request.profile))
        case .adopt(let arguments):
            let (session, _) = try await session(for: location(of: request))
            let expiresAt = arguments.expiresAt.map { Date(timeIntervalSince1970: TimeInterval($0)) }
            let adopted = await session.adoptAccessToken(arguments.accessToken, expiresAt: expiresAt, idToken: arguments.idToken)
            return .ok(AgentAcknowledgement.adopted(adopted))
        case .status, .watch:
            // A single answer to `watch` is the current status; streams go through ``watch(_:)``.
            let location = try location(of: request)
            let entry = try await entry(for: location)
            // A keyring can lock behind a session that has no reason to read the store: look.
            await KeySourceProbe.noticeLocking(entry.session, keySource: entry.storage.keySource, kind: entry.settings.keySource)
            return .ok(Self.status(of: entry.session, settings: entry.settings, profile: location.profile))
        case .unlock(let arguments):
            let location = try location(of: request)
            let entry = try await entry(for: location)
            try await KeySourceProbe.unlock(
                entry.session, storage: entry.storage, passphrase: arguments.passphrase, profile: location.profile)
            return .ok(Self.status(of: entry.session, settings: entry.settings, profile: location.profile))
        case .token(let arguments):
            let location = try location(of: request)
            let token = try await accessToken(of: entry(for: location), at: location, forceRefresh: arguments.forceRefresh)
            return Self.tokenReply(token, arguments, profile: location.profile)
        case .idToken(let arguments):
            let location = try location(of: request)
            let (session, _) = try await session(for: location)
            let token = try await session.currentIDToken(forceRefresh: arguments.forceRefresh)
            let result = AgentTokenResult(kind: .id, value: token.value, expiresAt: Int64(token.expiresAt.timeIntervalSince1970))
            return Self.tokenReply(result, arguments, profile: location.profile)
        case .userInfo:
            let (session, _) = try await session(for: location(of: request))
            let info = try await session.userInfo()
            return .ok(AgentUserInfo(claims: info.claims))
        case .request(let arguments):
            let (session, _) = try await session(for: location(of: request))
            let response = try await session.send(try arguments.httpRequest())
            return .ok(AgentHTTPResponse(response))
        case .logout(let endSession):
            let (session, _) = try await session(for: location(of: request))
            let ending = await session.logout(endSession: endSession)
            return .ok(AgentLogoutResult(state: session.state, outcome: ending))
        }
    }

    /// The access token for a `token` request. In the agent, a refresh runs in a process of its
    /// own (``RefreshChild``), one at a time per location (T2), so that libcurl is never loaded
    /// here for token work; the session then follows the record the child wrote and holds its
    /// token. A passphrase profile keeps refreshing here: only the agent holds its passphrase
    /// (given by `versola unlock`), and the child has no way to receive it. So does a session
    /// the store alone cannot renew (``Session/renewableFromStore``).
    private func accessToken(of entry: Entry, at location: Location, forceRefresh: Bool) async throws(VersolaError)
        -> AgentTokenResult
    {
        let session = entry.session
        guard let refreshChild, entry.settings.keySource != .passphrase,
            forceRefresh || session.servableAccessToken() == nil, await session.renewableFromStore
        else { return AgentTokenResult(try await session.currentAccessToken(forceRefresh: forceRefresh)) }
        let flight: Task<Result<AgentTokenResult, VersolaError>, Never>
        if let running = childRefreshes[location] {
            flight = running
        } else {
            let store = entry.storage.store
            flight = Task { await Self.refresh(session, store: store, by: refreshChild, at: location, forced: forceRefresh) }
            childRefreshes[location] = flight
        }
        let result = await flight.value
        if childRefreshes[location] == flight { childRefreshes[location] = nil }
        return try result.get()
    }

    /// Runs the refresh process and has `session` follow what it wrote: the renewed record (and
    /// the token, for the same user), or the record wiped after a refused grant (S7). A renewed
    /// record the disk refused comes back sealed: the session holds it, serves from it and
    /// writes it when the disk has room (P10).
    private static func refresh(
        _ session: Session, store: FileSessionStore, by child: RefreshChild, at location: Location, forced: Bool
    ) async -> Result<AgentTokenResult, VersolaError> {
        let subject = session.user?.subject
        let point = await session.handOverPoint()
        let answer = await child.refresh(location, forced: forced)
        let result = answer.result
        if let sealed = answer.sealedRecord, let record = try? await store.open(sealed: sealed) {
            await session.holdHandedOver(record, since: point)
        }
        await session.reloadFromStore()
        // The token belongs to the grant now on disk unless another sign-in replaced it meanwhile.
        if case .success(let token) = result, session.user?.subject == subject {
            let expiresAt = token.expiresAt.map { Date(timeIntervalSince1970: TimeInterval($0)) }
            _ = await session.adoptAccessToken(token.value, expiresAt: expiresAt, idToken: await session.idToken())
        }
        return result
    }

    /// The renewed record the request's session could not store (P10), sealed for the process
    /// that outlives this one; nil when there is none.
    func unsavedSealedRecord(for request: AgentRequest) async -> [UInt8]? {
        guard let location = try? location(of: request), let entry = entries[location],
            let record = await entry.session.unsavedRecord
        else { return nil }
        return try? await entry.storage.store.seal(record)
    }

    /// The location's session, restored from its store on first use and kept while the
    /// profile's settings stay the same (it follows the store by itself).
    public func session(for location: Location) async throws(VersolaError) -> (Session, ProfileSettings) {
        let entry = try await entry(for: location)
        return (entry.session, entry.settings)
    }

    /// The location's entry (see ``session(for:)``). A locked session first looks at its key
    /// source again, so a keyring unlocked meanwhile (or a passphrase given) is noticed (S10).
    private func entry(for location: Location) async throws(VersolaError) -> Entry {
        let files = ProfileFiles(configHome: location.directories.configHome.path)
        // Taken before the file is read: a change after it shows as another generation.
        let generation = ProfileGeneration(location.directories, profile: location.profile)
        let settings = try files.require(location.profile)
        index.withLock { $0.touch(location) }
        if let entry = entries[location], entry.settings == settings {
            // Another request may be restoring it right now: share that session (T2).
            await entry.ready.value
            await KeySourceProbe.noticeUnlocking(entry.session, keySource: entry.storage.keySource)
            confirm(entry, at: location, generation: generation)
            return entry
        }
        let storage = try ProfileStorage(
            profile: location.profile, settings: settings, directories: location.directories, environment: environment,
            passphrase: passphrase)
        let session = try Session(
            configuration: SessionConfiguration(client: settings.clientConfiguration),
            store: storage.store, environment: engine ?? .command(environment), browser: NoBrowser())
        let ready = Task { await session.start() }
        let entry = Entry(session: session, settings: settings, storage: storage, ready: ready)
        entries[location] = entry
        dropLeastRecentlyUsed(keeping: location)
        await ready.value
        // Followed from its restored state on: a stream taken before the restore would deliver
        // the state before it after a watcher had been given the restored one.
        if entries[location]?.session === session { install(session, for: location) }
        confirm(entry, at: location, generation: generation)
        return entry
    }

    /// Lets the warm path serve `entry` while the profile stays at `generation`, unless it was
    /// replaced or dropped meanwhile.
    private func confirm(_ entry: Entry, at location: Location, generation: ProfileGeneration?) {
        guard entries[location]?.session === entry.session else { return }
        index.withLock { $0.warm[location] = generation.map { (entry.session, $0) } }
    }

    /// Keeps at most `capacity` sessions: the least recently used without a watcher goes,
    /// with its forwarder; the session's store watcher (a thread, a pipe, an inotify
    /// instance) stops once the last request using it is answered. A session holding only an
    /// access token in memory loses it (the next request refreshes).
    private func dropLeastRecentlyUsed(keeping kept: Location) {
        while entries.count > capacity {
            let idle = entries.keys.filter { $0 != kept && watchers[$0, default: [:]].isEmpty }
            guard let oldest = index.withLock({ $0.leastRecentlyUsed(of: idle) }) else { return }
            entries[oldest] = nil
            index.withLock { $0.forget(oldest) }
            forwarders[oldest]?.cancel()
            forwarders[oldest] = nil
            lastBroadcast[oldest] = nil
            watchers[oldest] = nil
        }
    }

    /// How many locations keep a session now.
    var sessionCount: Int { entries.count }

    private func install(_ session: Session, for location: Location) {
        forwarders[location]?.cancel()
        let stream = session.states()
        forwarders[location] = Task { [weak self] in
            for await state in stream {
                await self?.broadcast(state, location: location)
            }
        }
    }

    /// Sends a state to the location's watchers, never the same value twice in a row (T6),
    /// also when a session was replaced by one in the same state.
    private func broadcast(_ state: SessionState, location: Location) {
        guard lastBroadcast[location] != state else { return }
        lastBroadcast[location] = state
        for continuation in watchers[location, default: [:]].values { continuation.yield(state) }
    }

    /// Every state change of the request's profile, including those made by other processes
    /// (S3, S11). The first value is the current state.
    public func watch(_ request: AgentRequest) async throws(VersolaError) -> AsyncStream<SessionState> {
        let location = try location(of: request)
        _ = try await session(for: location)
        let identifier = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: SessionState.self, bufferingPolicy: .bufferingNewest(16))
        // Only the forwarder reads the session's states, so a watcher sees them in their order:
        // the last one it broadcast now, or (before its first) the one it broadcasts next.
        if let current = lastBroadcast[location] { continuation.yield(current) }
        watchers[location, default: [:]][identifier] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.stopWatching(identifier, location: location) }
        }
        return stream
    }

    private func stopWatching(_ identifier: UUID, location: Location) {
        watchers[location]?[identifier] = nil
        if watchers[location]?.isEmpty == true { watchers[location] = nil }
    }

    /// The status object of the request's profile with `state` as the state (a watched change).
    func status(of request: AgentRequest, reporting state: SessionState) async -> AgentStatus {
        guard let location = try? location(of: request), let (session, settings) = try? await session(for: location) else {
            return AgentStatus(profile: request.profile, state: state)
        }
        return Self.status(of: session, settings: settings, profile: location.profile, state: state)
    }

    /// The status: profile, state, whether signed in, the user, issuer and client.
    static func status(
        of session: Session, settings: ProfileSettings, profile: String, state: SessionState? = nil
    ) -> AgentStatus {
        var status = AgentStatus(profile: profile, state: state ?? session.state)
        status.user = session.user.map { AgentStatus.User(subject: $0.subject, name: $0.name, email: $0.email) }
        status.issuer = settings.issuer
        status.clientID = settings.clientID
        // Whether tokens are DPoP-bound: the held token's type once known, else what the mode asks.
        status.dpop = session.grantTokenType.map { $0 == .dpop } ?? (settings.dpop == .require)
        status.dpopMode = settings.dpop
        switch session.grantLifetime {
        case .endsAt(let end)?: status.lifetime = .endsAt(ISO8601DateFormatter().string(from: end))
        case .unbounded?: status.lifetime = .unbounded
        case .renewable?: status.lifetime = .renewable
        case nil: break
        }
        status.problem = session.storageProblem
        // P12: records a sign-in moved aside because they no longer decrypted.
        status.setAside = session.setAsideRecords
        return status
    }
}

/// A browser that never opens: the agent never starts a login, and `--no-browser` prints the URL.
struct NoBrowser: BrowserLauncher {
    func open(_ url: String) async -> Bool { false }
}
