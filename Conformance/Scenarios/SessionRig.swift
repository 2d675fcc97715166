import Foundation
import Synchronization
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

/// The test provider, a session on files in a temporary directory, and a clock whose
/// monotonic time the scenario moves by hand.
struct SessionRig {
    let idp: TestIdentityServer
    let browser: HeadlessBrowser
    let clock = ScenarioClock()
    let directories: XDGDirectories
    let root: URL
    let configuration: SessionConfiguration
    let session: Session
    let storage: SessionStorage

    init(
        profile: String = "work", browserFollows: Bool = true, usesDPoP: Bool = false,
        configure: @Sendable (inout TestProviderConfiguration) -> Void = { _ in },
        configureClient: (inout ClientConfiguration) -> Void = { _ in }
    ) async throws {
        var providerConfiguration = TestProviderConfiguration()
        providerConfiguration.autoLogin = true
        configure(&providerConfiguration)
        // The provider reads the same wall clock as the engine, so moving time moves both.
        let clock = clock
        let idp = try await TestIdentityServer.start(configuration: providerConfiguration, now: { clock.wallClockNow })
        self.idp = idp
        root = FileManager.default.temporaryDirectory.appendingPathComponent("versola-scenario-\(UUID().uuidString)")
        directories = XDGDirectories(
            stateHome: root.appendingPathComponent("state"), configHome: root.appendingPathComponent("config"))
        var client = ClientConfiguration(issuer: idp.issuer, clientID: "versola-test")
        client.usesDPoP = usesDPoP
        configureClient(&client)
        configuration = SessionConfiguration(client: client)
        browser = HeadlessBrowser(follows: browserFollows, starts: true)
        do {
            storage = try SessionStorage(profile: profile, keySource: .keyFile, directories: directories)
            session = try Self.makeSession(configuration: configuration, storage: storage, clock: clock, browser: browser)
        } catch {
            // No rig to stop comes back: stop the provider here.
            await idp.stop()
            try? FileManager.default.removeItem(at: root)
            throw error
        }
    }

    static func makeSession(
        configuration: SessionConfiguration, storage: SessionStorage, clock: ScenarioClock, browser: any BrowserLauncher
    ) throws -> Session {
        try makeSession(configuration: configuration, store: storage.store, clock: clock, browser: browser)
    }

    /// A session on `store` with the rig's kind of engine environment.
    static func makeSession(
        configuration: SessionConfiguration, store: any SessionStore, clock: ScenarioClock, browser: any BrowserLauncher
    ) throws -> Session {
        let http = RetryingClient(
            transport: CurlTransport(), clock: clock, random: SystemRandomSource(),
            defaultOptions: configuration.client.transport)
        return try Session(
            configuration: configuration, store: store, environment: EngineEnvironment(http: http), browser: browser)
    }

    /// A second session on the same profile, as a restarted process would have.
    func restarted() throws -> Session {
        let storage = try SessionStorage(profile: storage.store.profile, keySource: .keyFile, directories: directories)
        return try Self.makeSession(configuration: configuration, storage: storage, clock: clock, browser: browser)
    }

    /// Signs in, then alters the stored record so it no longer decrypts; its bytes come back.
    func signedInWithTamperedRecord() async throws -> Data {
        await session.start()
        try await session.login()
        let file = storage.store.recordFile
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 5] ^= 0x40
        try bytes.write(to: file)
        return bytes
    }

    func tokenRequests(grant: String) async -> Int {
        await idp.provider.requests(to: .token).filter { $0.formValue("grant_type") == grant }.count
    }

    func stop() async {
        await idp.stop()
        // blocking: file removal waits on a busy file system, off the task pool
        await DedicatedThread.run { [root] in _ = try? FileManager.default.removeItem(at: root) }
    }
}

/// Collects the states a session publishes.
final class StateLog: Sendable {
    private final class Storage: Sendable {
        let states = Mutex<[SessionState]>([])
    }

    private let storage = Storage()
    private let task: Task<Void, Never>

    init(_ session: Session) {
        let stream = session.states()
        let storage = storage
        task = Task {
            for await state in stream { storage.states.withLock { $0.append(state) } }
        }
    }

    var all: [SessionState] { storage.states.withLock { $0 } }

    /// Waits (yielding, never sleeping) until `count` states were seen.
    func wait(for count: Int) async {
        for _ in 0..<100_000 where all.count < count { await Task.yield() }
    }

    deinit { task.cancel() }
}
