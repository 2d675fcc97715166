import Foundation
import Synchronization
import Testing

/// A real GNOME Keyring on a private D-Bus session bus, inside a CLIHarness's temporary home:
/// `dbus-daemon` (its own configuration: a socket in the home, and no service activation, so
/// nothing starts behind the test's back) and `gnome-keyring-daemon --components=secrets`,
/// unlocked with a password on its standard input, as a desktop login unlocks it.
///
/// Locking is the Secret Service's own `Lock` method (`dbus-send`). Unlocking headlessly:
/// `Unlock` needs a prompt (gcr-prompter needs a display; with no prompter the daemon answers
/// that the prompt cannot be created), and `gnome-keyring-daemon --replace --unlock` was measured
/// to lose the bus name to the old daemon now and then ("another secret service is running"), so
/// the daemon is stopped and started again with the password, which unlocks the same keyring
/// file, exactly as logging in to the desktop does.
///
/// Needs Debian's `dbus-daemon`, `dbus-bin`, `gnome-keyring` and `libsecret-tools`
/// (scripts/test.sh installs them); without them ``start(_:)`` records an issue and returns nil.
final class PrivateKeyring: Sendable {
    static let password = "keyring-password-for-tests"
    static let tools = ["dbus-daemon", "dbus-send", "gnome-keyring-daemon", "secret-tool"]

    let cli: CLIHarness
    /// `DBUS_SESSION_BUS_ADDRESS` for the commands of the test.
    let environment: [String: String]
    private let bus: pid_t
    private let daemon = Mutex<pid_t>(0)

    private init(cli: CLIHarness, address: String, bus: pid_t) {
        self.cli = cli
        self.environment = ["DBUS_SESSION_BUS_ADDRESS": address]
        self.bus = bus
    }

    deinit {
        // A test that stopped early still ends its daemons.
        let running = daemon.withLock { $0 }
        if running > 0 { kill(running, SIGKILL) }
        kill(bus, SIGKILL)
    }

    /// The bus and an unlocked keyring; nil (with an issue recorded) when a tool is missing.
    static func start(_ cli: CLIHarness) async throws -> PrivateKeyring? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        let missing = tools.filter { tool in !path.contains { access("\($0)/\(tool)", X_OK) == 0 } }
        guard missing.isEmpty else {
            Issue.record(
                """
                \(missing.joined(separator: ", ")) not installed, so the Secret Service was not tested: scripts/test.sh \
                installs dbus-daemon, dbus-bin, gnome-keyring and libsecret-tools
                """)
            return nil
        }
        let socket = cli.home.path + "/bus"
        let configuration = cli.home.path + "/bus.conf"
        let text = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try text.write(toFile: configuration, atomically: true, encoding: .utf8)
        let stem = cli.home.path + "/dbus"
        let bus = try cli.spawn("dbus-daemon", ["--config-file=\(configuration)", "--nofork", "--print-address=1"], stem: stem)
        guard let printed = await cli.contents(of: stem + ".out", containing: "unix:") else {
            kill(bus, SIGKILL)
            Issue.record("dbus-daemon printed no address")
            return nil
        }
        let address = String(printed.split(separator: "\n").first ?? "")
        let keyring = PrivateKeyring(cli: cli, address: address, bus: bus)
        try await keyring.startDaemon()
        return keyring
    }

    /// Starts `gnome-keyring-daemon`, unlocking (or, the first time, creating) the login keyring.
    func startDaemon() async throws {
        let input = cli.home.path + "/keyring-password"
        try Self.password.write(toFile: input, atomically: true, encoding: .utf8)
        let stem = cli.home.path + "/keyring-" + UUID().uuidString.prefix(8)
        let pid = try cli.spawn(
            "gnome-keyring-daemon", ["--foreground", "--unlock", "--components=secrets"], extraEnvironment: environment,
            stem: stem, input: input)
        daemon.withLock { $0 = pid }
        #expect(await waitForService(present: true), "gnome-keyring-daemon did not take the Secret Service's name")
    }

    /// Stops the daemon and waits until the bus has released its name.
    func stopDaemon() async {
        let pid = daemon.withLock { value -> pid_t in
            defer { value = 0 }
            return value
        }
        guard pid > 0 else { return }
        kill(pid, SIGTERM)
        _ = await cli.finished(pid, stem: cli.home.path + "/stopped-keyring")
        #expect(await waitForService(present: false), "the Secret Service's name stayed taken")
    }

    /// Locks the login collection through the Secret Service's `Lock` method.
    func lock() async throws {
        let locked = try await run(
            "dbus-send",
            [
                "--session", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
                "org.freedesktop.Secret.Service.Lock", "array:objpath:/org/freedesktop/secrets/collection/login",
            ])
        #expect(locked.status == 0, "Lock failed: \(locked.stderr)")
        #expect(locked.stdout.contains("/org/freedesktop/secrets/collection/login"))
    }

    /// Unlocks by starting the daemon again with the password (see the type's documentation).
    func unlock() async throws {
        await stopDaemon()
        try await startDaemon()
    }

    /// How many items `secret-tool search` lists for the profile, locked ones included.
    func itemCount(profile: String = "default") async throws -> Int {
        let found = try await run("secret-tool", ["search", "application", "versola", "profile", profile])
        return found.stdout.split(separator: "\n").filter { $0.hasPrefix("[/") }.count
    }

    /// The profile's key as stored (compared by the tests, never printed).
    func storedKey(profile: String = "default") async throws -> String? {
        let found = try await run("secret-tool", ["lookup", "application", "versola", "profile", profile])
        return found.status == 0 && !found.stdout.isEmpty ? found.stdout : nil
    }

    private func waitForService(present: Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let answer = try? await run(
                "dbus-send",
                [
                    "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                    "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets",
                ])
            if answer?.stdout.contains(present ? "boolean true" : "boolean false") == true { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    private func run(_ tool: String, _ arguments: [String]) async throws -> CLIHarness.Outcome {
        let stem = cli.home.path + "/tool-" + UUID().uuidString.prefix(8)
        let pid = try cli.spawn(tool, arguments, extraEnvironment: environment.merging(["LC_ALL": "C"]) { $1 }, stem: stem)
        return await cli.finished(pid, stem: stem)
    }
}
