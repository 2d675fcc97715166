import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP
import VersolaTesting

@testable import VersolaCommand

/// Runs the built `versola` binary as a user would, in an isolated home: its own XDG
/// config, state and runtime directories (so its own agent socket), against an in-process
/// test provider. Stops the agent it may have started when it goes away.
final class CLIHarness: Sendable {
    /// What one run printed and returned.
    struct Outcome: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    let home: TemporaryDirectory
    let idp: TestIdentityServer
    let environment: [String: String]

    /// The command as a user runs it: the front (`versola-front` beside the test bundle, which
    /// hands everything but a warm `token` to the engine), or the installed `versola` named
    /// by `VERSOLA_CLI_UNDER_TEST` (to run these tests against `make install`'s layout).
    static var executable: String {
        if let installed = ProcessInfo.processInfo.environment["VERSOLA_CLI_UNDER_TEST"], !installed.isEmpty {
            return installed
        }
        return buildDirectory + "/versola-front"
    }

    /// The engine alone: `versola` beside the test bundle, or for an installed `PREFIX/bin/versola`
    /// (`VERSOLA_CLI_UNDER_TEST`) the `PREFIX/libexec/versola/versola` it hands commands to.
    static var engine: String {
        if let installed = ProcessInfo.processInfo.environment["VERSOLA_CLI_UNDER_TEST"], !installed.isEmpty {
            let prefix = ((installed as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
            return prefix + "/libexec/versola/versola"
        }
        return buildDirectory + "/versola"
    }

    private static var buildDirectory: String {
        ((VersolaCommandLine.currentExecutable() ?? "") as NSString).deletingLastPathComponent
    }

    /// A harness with a fresh provider. `runtime: false` leaves `XDG_RUNTIME_DIR` unset (the
    /// agent then lives under `$TMPDIR/versola-<uid>`, TMPDIR being the harness's own).
    init(
        configure: @Sendable (inout TestProviderConfiguration) -> Void = { _ in }, runtime: Bool = true,
        issuerPath: String = "", separateResourceServer: Bool = false
    ) async throws {
        home = try TemporaryDirectory()
        var configuration = TestProviderConfiguration()
        configuration.autoLogin = true
        configure(&configuration)
        let idp = try await TestIdentityServer.start(
            configuration: configuration, issuerPath: issuerPath, separateResourceServer: separateResourceServer)
        self.idp = idp
        var environment = [
            "HOME": home.path, "XDG_CONFIG_HOME": home.path + "/config", "XDG_STATE_HOME": home.path + "/state",
            "TMPDIR": home.path + "/tmp", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "VERSOLA_AGENT_IDLE_TIMEOUT": "30",
        ]
        // Under scripts/tsan.sh the children are sanitized too: they need its options
        // (suppressions) and its preloaded lock shim, like the test process.
        for name in ["TSAN_OPTIONS", "LD_PRELOAD"] {
            if let value = ProcessInfo.processInfo.environment[name] { environment[name] = value }
        }
        do {
            try FileManager.default.createDirectory(atPath: home.path + "/tmp", withIntermediateDirectories: true)
            if runtime {
                try FileManager.default.createDirectory(atPath: home.path + "/run", withIntermediateDirectories: true)
                chmod(home.path + "/run", 0o700)
                environment["XDG_RUNTIME_DIR"] = home.path + "/run"
            }
        } catch {
            // No harness to finish comes back: stop the provider here.
            await idp.stop()
            throw error
        }
        self.environment = environment
    }

    /// The agent directory this harness's commands use.
    var agentDirectory: String {
        environment["XDG_RUNTIME_DIR"].map { $0 + "/versola" } ?? home.path + "/tmp/versola-\(getuid())"
    }

    /// The headless browser: follows the provider's redirects to the loopback listener.
    static let browser = "curl -sL -o /dev/null %s"

    /// Runs `versola` with `arguments` on a thread of its own, so that waiting for it never
    /// holds a cooperative-pool thread the in-process provider needs to answer.
    func run(_ arguments: [String], extraEnvironment: [String: String] = [:], stdin: String? = nil) async throws
        -> Outcome
    {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Outcome, any Error>, Never>) in
            let thread = Thread {
                continuation.resume(
                    returning: Result { try self.runBlocking(arguments, extraEnvironment: extraEnvironment, stdin: stdin) })
            }
            thread.start()
        }
        return try result.get()
    }

    /// posix_spawn and waitpid (Foundation's `Process` can miss a child's exit when many run
    /// at once); the streams go through files in the harness's directory.
    private func runBlocking(_ arguments: [String], extraEnvironment: [String: String], stdin: String?) throws -> Outcome {
        let stem = home.path + "/io-" + UUID().uuidString.prefix(8)
        let input = stdin.map { text -> String in
            _ = FileManager.default.createFile(atPath: stem + ".in", contents: Data(text.utf8))
            return stem + ".in"
        } ?? "/dev/null"
        let child = try spawn(Self.executable, arguments, extraEnvironment: extraEnvironment, stem: stem, input: input)
        let outcome = Self.wait(child, stem: stem)
        unlink(stem + ".in")
        return outcome
    }

    /// Waits for `child` and collects what it wrote to `stem.out` and `stem.err`.
    static func wait(_ child: pid_t, stem: String) -> Outcome {
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let out = FileManager.default.contents(atPath: stem + ".out") ?? Data()
        let err = FileManager.default.contents(atPath: stem + ".err") ?? Data()
        for suffix in [".out", ".err"] { unlink(stem + suffix) }
        return Outcome(
            status: exitStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    /// Starts `executable` with its output in `stem.out`/`stem.err` and `input` as stdin
    /// (opened read-write, so that a FIFO does not block the start).
    func spawn(
        _ executable: String, _ arguments: [String], extraEnvironment: [String: String] = [:], stem: String,
        input: String = "/dev/null"
    ) throws -> pid_t {
        try Self.spawn(
            executable, arguments, environment: environment.merging(extraEnvironment) { $1 }, stem: stem, input: input)
    }

    /// ``spawn(_:_:extraEnvironment:stem:input:)`` with the whole environment given.
    static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String], stem: String,
        input: String = "/dev/null"
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input, input == "/dev/null" ? O_RDONLY : O_RDWR, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stem + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stem + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Nothing else of the test process (other tests' sockets and pipes) reaches the child: a
        // copy held there would keep a connection or pipe open after its owner closed it.
        guard CloseOnExec.closeDescriptors(from: 3, in: &actions) else { throw CocoaError(.executableLoad) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // The test runner's threads may block signals; the child starts with none blocked.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var child: pid_t = 0
        let spawned = posix_spawnp(&child, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        return child
    }

    /// Writes an executable file that no process holds open for writing once this returns.
    ///
    /// Written by this process, even through a close-on-exec descriptor, the file would stay
    /// busy (ETXTBSY when run) while any child another test was starting at that moment lived
    /// between its clone, which copies the descriptor, and its exec, which closes it. So the
    /// bytes go to a scratch file, and `cp`, a process of its own whose descriptors no one
    /// inherits, writes the executable from it.
    static func writeExecutable(_ bytes: [UInt8], to path: String) throws {
        let scratch = path + ".bytes"
        let descriptor = open(scratch, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        defer { unlink(scratch) }
        guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
        let copy = try Self.spawn("/bin/cp", [scratch, path], environment: ProcessInfo.processInfo.environment, stem: scratch)
        guard Self.wait(copy, stem: scratch).status == 0 else { throw CocoaError(.fileWriteUnknown) }
        guard chmod(path, 0o755) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Waits on a thread of its own for `child` (see ``run(_:extraEnvironment:stdin:)``).
    func finished(_ child: pid_t, stem: String) async -> Outcome {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Self.wait(child, stem: stem)) }.start()
        }
    }

    /// The contents of `path` once it contains `marker`, or nil after 60 s. Waits for another
    /// process's output, not for time.
    func contents(of path: String, containing marker: String) async -> String? {
        // A bound, not a wait: the line normally appears within milliseconds, but a loaded machine
        // has taken over ten seconds to start a login and print it.
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let data = FileManager.default.contents(atPath: path) {
                let text = String(decoding: data, as: UTF8.self)
                if text.contains(marker) { return text }
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Follows the provider's redirects from `url` (auto-login) up to the loopback redirect,
    /// without delivering it: the address a person would copy from the browser.
    func finalRedirect(from url: String) async throws -> String? {
        var next = url
        for _ in 0..<6 {
            let stem = home.path + "/curl-" + UUID().uuidString.prefix(8)
            let child = try spawn("curl", ["-s", "-o", "/dev/null", "-w", "%{redirect_url}", next], stem: stem)
            let location = await finished(child, stem: stem).stdout
            if location.isEmpty { return nil }
            if location.contains("/callback?") { return location }
            next = location
        }
        return nil
    }

    /// `versola login` through the provider with the headless browser; expects success.
    @discardableResult
    func login(_ extra: [String] = []) async throws -> Outcome {
        let outcome = try await run(
            ["login", "--issuer", idp.issuer, "--client-id", "versola-test", "--browser-command", Self.browser] + extra)
        #expect(outcome.status == 0, "login failed: \(outcome.stderr)")
        return outcome
    }

    /// How many requests reached `endpoint` of the provider.
    func requestCount(_ endpoint: TestEndpoint) async -> Int {
        await idp.provider.requests(to: endpoint).count
    }

    /// Stops the agent and the provider.
    func finish() async {
        _ = try? await run(["agent", "--stop"])
        await idp.stop()
    }

    /// Removes what the home holds on a thread of its own: the home's removal when the harness
    /// goes away would otherwise wait on the file system on the task pool (seen in thread dumps).
    func emptyHome() async {
        await DedicatedThread.run { [path = home.path] in
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                try? FileManager.default.removeItem(atPath: path + "/" + entry)
            }
        }
    }
}

/// Runs `body` with `cli`, then `finish`es it (by default ``CLIHarness/finish()``: the agent and
/// the provider stop) and empties its home, also when `body` throws (a failed `#require` or an
/// unexpected error), so a failing test never leaves its provider or agent running.
func withHarness(
    _ cli: CLIHarness, finish: (CLIHarness) async -> Void = { await $0.finish() },
    _ body: (CLIHarness) async throws -> Void
) async throws {
    try await withStopping(
        cli,
        stop: {
            await finish($0)
            await $0.emptyHome()
        }, body)
}
