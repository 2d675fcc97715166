import Foundation
import Versola
import VersolaJOSE

/// Holds one ``Session`` per profile and answers ``AgentRequest``s with it. The session agent
/// runs one host for the user (so access tokens stay in memory across commands, P4, and
/// concurrent callers share one refresh, T2); a command run with `--no-agent` uses a host of
/// its own, backed by the same store and its cross-process lock.
public actor SessionHost {
    private let environment: [String: String]
    private let engine: EngineEnvironment?
    /// One profile's session and whether its restore from disk finished.
    private struct Entry {
        var session: Session
        var settings: ProfileSettings
        var restoring: Task<Void, Never>
        var restored = false
    }

    private var entries: [String: Entry] = [:]
    private var forwarders: [String: Task<Void, Never>] = [:]
    private var watchers: [String: [UUID: AsyncStream<SessionState>.Continuation]] = [:]

    /// Creates a host reading profiles and stores under the XDG directories of `environment`.
    /// - Parameter engine: the engine environment for new sessions (the system's when nil).
    public init(environment: [String: String], engine: EngineEnvironment? = nil) {
        self.environment = environment
        self.engine = engine
    }

    /// Answers one request.
    public func handle(_ request: AgentRequest) async -> AgentReply {
        do {
            return .success(try await perform(request))
        } catch {
            return .failure(error)
        }
    }

    private func perform(_ request: AgentRequest) async throws(VersolaError) -> JSONValue {
        let profile = request.profile
        switch request.operation {
        case .ping, .stop:
            return ["pid": .integer(Int64(getpid()))]
        case .reload:
            forget(profile)
            return ["reloaded": .string(profile)]
        case .status:
            let (session, settings) = try await session(for: profile)
            return Self.status(of: session, settings: settings, profile: profile)
        case .token:
            let (session, settings) = try await session(for: profile)
            let force = request.arguments["forceRefresh"]?.bool ?? false
            let token = try await session.accessToken(forceRefresh: force)
            return [
                "accessToken": .string(token), "tokenType": .string(settings.usesDPoP ? "DPoP" : "Bearer"),
                "expiresAt": AccessTokenExpiry.expiry(of: token).map { .integer($0) } ?? .null,
            ]
        case .userInfo:
            let (session, _) = try await session(for: profile)
            let info = try await session.userInfo()
            return .object(info.claims)
        case .request:
            let (session, _) = try await session(for: profile)
            let httpRequest = try RequestCoding.decodeRequest(request.arguments)
            let response = try await session.send(httpRequest)
            return RequestCoding.encode(response)
        case .logout:
            let (session, _) = try await session(for: profile)
            await session.logout(endSession: request.arguments["endSession"]?.bool ?? false)
            return ["state": .string(session.state.rawValue)]
        case .watch:
            // Answered by ``watch(_:)``; a single answer is the current status.
            let (session, settings) = try await session(for: profile)
            return Self.status(of: session, settings: settings, profile: profile)
        }
    }

    /// The profile's session, restored from its store on first use (and again while it is
    /// signed out, so that a login by another process is picked up).
    public func session(for profile: String) async throws(VersolaError) -> (Session, ProfileSettings) {
        let files = try ProfileFiles(configHome: XDGDirectories.current(environment: environment).configHome.path)
        let settings = try files.require(profile)
        if let entry = entries[profile], entry.settings == settings {
            if !entry.restored {
                // Another request is restoring it right now: share that session (T2).
                await entry.restoring.value
                return (entry.session, settings)
            }
            if entry.session.state != .unauthenticated { return (entry.session, settings) }
        }
        let storage = try SessionStorage.standard(profile: profile, environment: environment)
        let session = try Session(
            configuration: SessionConfiguration(client: settings.clientConfiguration, profile: profile),
            store: storage.store, environment: engine, browser: NoBrowser())
        let restoring = Task { await session.start() }
        entries[profile] = Entry(session: session, settings: settings, restoring: restoring)
        install(session, for: profile)
        await restoring.value
        if entries[profile]?.session === session { entries[profile]?.restored = true }
        return (session, settings)
    }

    private func install(_ session: Session, for profile: String) {
        forwarders[profile]?.cancel()
        let stream = session.states()
        forwarders[profile] = Task { [weak self] in
            for await state in stream {
                await self?.broadcast(state, profile: profile)
            }
        }
    }

    private func forget(_ profile: String) {
        forwarders[profile]?.cancel()
        forwarders[profile] = nil
        entries[profile] = nil
    }

    private func broadcast(_ state: SessionState, profile: String) {
        for continuation in watchers[profile, default: [:]].values { continuation.yield(state) }
    }

    /// Every state change of `profile`'s session, including across sessions replaced after
    /// a login elsewhere (S3). The first value is the current state.
    public func watch(_ profile: String) async throws(VersolaError) -> AsyncStream<SessionState> {
        let (session, _) = try await session(for: profile)
        let identifier = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: SessionState.self, bufferingPolicy: .bufferingNewest(16))
        continuation.yield(session.state)
        watchers[profile, default: [:]][identifier] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.stopWatching(identifier, profile: profile) }
        }
        return stream
    }

    private func stopWatching(_ identifier: UUID, profile: String) {
        watchers[profile]?[identifier] = nil
    }

    /// The status object of `profile` with `state` as the state (a watched change).
    func status(of profile: String, reporting state: SessionState) async -> JSONValue {
        guard let (session, settings) = try? await session(for: profile) else {
            return ["profile": .string(profile), "state": .string(state.rawValue)]
        }
        return Self.status(of: session, settings: settings, profile: profile, state: state)
    }

    /// The status object: profile, state, whether signed in, the user, issuer and client.
    static func status(
        of session: Session, settings: ProfileSettings, profile: String, state: SessionState? = nil
    ) -> JSONValue {
        let state = state ?? session.state
        let user: JSONValue =
            session.user.map { user in
                [
                    "subject": .string(user.subject), "name": user.name.map { .string($0) } ?? .null,
                    "email": user.email.map { .string($0) } ?? .null,
                ]
            } ?? .null
        return [
            "profile": .string(profile), "state": .string(state.rawValue), "signedIn": .bool(state.holdsGrant),
            "user": user, "issuer": .string(settings.issuer), "clientID": .string(settings.clientID),
            "dpop": .bool(settings.usesDPoP),
        ]
    }
}

/// A browser that never opens: the agent never starts a login, and `--no-browser` prints the URL.
struct NoBrowser: BrowserLauncher {
    func open(_ url: String) async -> Bool { false }
}
