import Foundation
import Versola
import VersolaHTTP
import VersolaTestIdP

// versola-scenario-child: runs one session operation against a provider and kills itself
// with SIGKILL at a chosen step, so the crash scenarios can check what a restart finds.
//   versola-scenario-child ISSUER STATE_DIR CONFIG_DIR (login|refresh|device-login|device-resume) KILL_AT
// Steps are the store writes (save-1, save-2, …), `token-response` (the token endpoint
// answered, before anything was stored) and `device-prompt` (a device login showed its code,
// printed first as `prompt URL`). `none` runs to the end. Prints the outcome.

let arguments = CommandLine.arguments
guard arguments.count == 6 else {
    FileHandle.standardError.write(
        Data("usage: versola-scenario-child ISSUER STATE CONFIG login|refresh|device-login|device-resume KILL_AT\n".utf8))
    exit(2)
}
let (issuer, stateDir, configDir, action, killAt) = (arguments[1], arguments[2], arguments[3], arguments[4], arguments[5])

func die(at step: String) {
    if step == killAt { kill(getpid(), SIGKILL) }
}

/// Counts store writes and dies at the chosen one.
final class CrashingStore: SessionStore {
    let inner: any SessionStore
    let saves = Counter()
    init(_ inner: any SessionStore) { self.inner = inner }
    func load() async throws(VersolaError) -> SessionRecord? { try await inner.load() }
    func save(_ record: SessionRecord) async throws(VersolaError) {
        try await inner.save(record)
        die(at: "save-\(saves.next())")
    }
    func wipe() async throws(VersolaError) { try await inner.wipe() }
    nonisolated(nonsending) func withExclusiveAccess<R>(_ body: () async throws(VersolaError) -> R)
        async throws(VersolaError) -> R
    {
        try await inner.withExclusiveAccess(body)
    }
}

/// Dies once the token endpoint has answered, before the engine sees the answer.
struct CrashingTransport: HTTPTransport {
    let inner = CurlTransport()
    func send(_ request: HTTPRequest, options: TransportOptions) async throws(TransportError) -> HTTPResponse {
        let response = try await inner.send(request, options: options)
        if request.url.path.hasSuffix("/token") { die(at: "token-response") }
        return response
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

struct AutomatedBrowser: BrowserLauncher {
    func open(_ url: String) async -> Bool {
        Task { _ = try? await HeadlessUserAgent().complete(authorizationURL: url) }
        return true
    }
}

var client = ClientConfiguration(issuer: issuer, clientID: "versola-test")
client.usesDPoP = false
let configuration = SessionConfiguration(client: client)
let directories = XDGDirectories(stateHome: URL(fileURLWithPath: stateDir), configHome: URL(fileURLWithPath: configDir))
let storage = try SessionStorage(profile: "crash", keySource: .keyFile, directories: directories)
let http = RetryingClient(transport: CrashingTransport(), clock: SystemClock(), random: SystemRandomSource())
let session = try Session(
    configuration: configuration, store: CrashingStore(storage.store), environment: EngineEnvironment(http: http),
    browser: AutomatedBrowser())
await session.start()
do {
    switch action {
    case "login": try await session.login()
    case "refresh": _ = try await session.accessToken(forceRefresh: true)
    case "device-login", "device-resume":
        let dies = killAt == "device-prompt"
        let present: @Sendable (DeviceAuthorizationPrompt) async -> Void = { prompt in
            print("prompt \(prompt.verificationURIComplete ?? prompt.verificationURI)")
            fflush(nil)
            if dies { kill(getpid(), SIGKILL) }
        }
        if action == "device-login" {
            try await session.loginWithDevice(present: present)
        } else {
            try await session.resumeDeviceLogin(present: present)
        }
    default: exit(2)
    }
    print("ok \(session.state)")
} catch {
    print("error \(error.category) \(error.cause) \(session.state)")
}
