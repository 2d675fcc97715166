import Foundation
import Testing
import Versola
import VersolaJOSE

@testable import VersolaCommand

/// `versola login --key-source secret-service` against a real GNOME Keyring on a private
/// session bus (``PrivateKeyring``): the real binary, the real agent, the real `secret-tool`.
@Suite("the desktop keyring, end to end", .serialized)
struct KeyringProcessScenarios {
    static func signIn(_ cli: CLIHarness, _ keyring: PrivateKeyring) async throws {
        let login = try await cli.run(
            [
                "login", "--issuer", cli.idp.issuer, "--client-id", "versola-test", "--browser-command", CLIHarness.browser,
                "--key-source", "secret-service",
            ], extraEnvironment: keyring.environment)
        #expect(login.status == 0, "login failed: \(login.stderr)")
    }

    static func state(_ cli: CLIHarness, _ keyring: PrivateKeyring) async throws -> JSONValue? {
        let status = try await cli.run(["status", "--json"], extraEnvironment: keyring.environment)
        return try? JSONValue(parsing: status.stdout)
    }

    @Test(
        "S10 P5 S9: a secret-service profile keeps its key in the keyring; locking gives locked with the session and key kept, unlocking gives tokens again, logout removes the item"
    )
    func keyringLifecycle() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            guard let keyring = try await PrivateKeyring.start(cli) else { return }
            let bus = keyring.environment
            try await Self.signIn(cli, keyring)
            let profile = try String(contentsOfFile: cli.home.path + "/config/versola/profiles/default.json", encoding: .utf8)
            #expect(profile.contains(#""keySource":"secret-service""#))
            #expect(try await keyring.itemCount() == 1)
            #expect(!FileManager.default.fileExists(atPath: cli.home.path + "/state/versola/key"), "a key file was made")
            let key = try await keyring.storedKey()
            #expect(key != nil)

            // Through the agent, and in a process of its own that reads the key from the keyring.
            let served = try await cli.run(["token"], extraEnvironment: bus)
            #expect(served.status == 0, "\(served.stderr)")
            let alone = try await cli.run(["--no-agent", "token", "--force-refresh"], extraEnvironment: bus)
            #expect(alone.status == 0, "\(alone.stderr)")
            let record = cli.home.path + "/state/versola/default/session"
            let sealed = try #require(FileManager.default.contents(atPath: record))

            // Locked: `locked`, still signed in; nothing stored or replaced meanwhile.
            try await keyring.lock()
            let locked = try await Self.state(cli, keyring)
            #expect(locked?["state"]?.string == "locked", "\(String(describing: locked))")
            #expect(locked?["signedIn"]?.bool == true)
            let refused = try await cli.run(["--no-agent", "token"], extraEnvironment: bus)
            #expect(refused.status == ExitStatus.recoverable.rawValue, "\(refused.stderr)")
            #expect(refused.stderr.contains("locked") && refused.stderr.contains("versola unlock"), "\(refused.stderr)")
            let throughAgent = try await cli.run(["token"], extraEnvironment: bus)
            #expect(throughAgent.status == ExitStatus.recoverable.rawValue, "\(throughAgent.stderr)")
            #expect(FileManager.default.contents(atPath: record) == sealed)
            #expect(try await keyring.itemCount() == 1)

            // Unlocked: tokens again, with the same key.
            try await keyring.unlock()
            let again = try await cli.run(["token"], extraEnvironment: bus)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try await Self.state(cli, keyring)?["state"]?.string == "authenticated")
            let sameKey = try await keyring.storedKey() == key
            #expect(sameKey, "the key in the keyring changed")
            #expect(try await keyring.itemCount() == 1)

            // Logout removes the record and the keyring item.
            let logout = try await cli.run(["logout"], extraEnvironment: bus)
            #expect(logout.status == 0, "\(logout.stderr)")
            #expect(try await keyring.itemCount() == 0)
            #expect(!FileManager.default.fileExists(atPath: record))
            await keyring.stopDaemon()
        }
    }

    @Test(
        "E4 S10: no session bus, no Secret Service on the bus and a missing secret-tool are configuration errors saying what to install or set; the session is kept"
    )
    func unusableKeyringIsConfiguration() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            guard let keyring = try await PrivateKeyring.start(cli) else { return }
            try await Self.signIn(cli, keyring)
            let record = cli.home.path + "/state/versola/default/session"
            let sealed = try #require(FileManager.default.contents(atPath: record))

            // The harness's environment has no DBUS_SESSION_BUS_ADDRESS, no DISPLAY and no $XDG_RUNTIME_DIR/bus.
            let noBus = try await cli.run(["--no-agent", "token"])
            #expect(noBus.status == ExitStatus.configuration.rawValue, "\(noBus.stderr)")
            #expect(noBus.stderr.contains("no D-Bus session bus") && noBus.stderr.contains("DBUS_SESSION_BUS_ADDRESS"), "\(noBus.stderr)")
            let noBusJSON = try await cli.run(["--no-agent", "--json", "token"])
            #expect(noBusJSON.stderr.contains(#""category":"configuration""#), "\(noBusJSON.stderr)")

            let noTool = try await cli.run(["--no-agent", "token"], extraEnvironment: keyring.environment.merging(["PATH": "/nonexistent"]) { $1 })
            #expect(noTool.status == ExitStatus.configuration.rawValue, "\(noTool.stderr)")
            #expect(noTool.stderr.contains("apt install libsecret-tools"), "\(noTool.stderr)")

            await keyring.stopDaemon()
            let noService = try await cli.run(["--no-agent", "token"], extraEnvironment: keyring.environment)
            #expect(noService.status == ExitStatus.configuration.rawValue, "\(noService.stderr)")
            #expect(noService.stderr.contains("no Secret Service") && noService.stderr.contains("gnome-keyring"), "\(noService.stderr)")

            // None of that touched the session: with the keyring back, the profile works as before.
            #expect(FileManager.default.contents(atPath: record) == sealed)
            try await keyring.startDaemon()
            let back = try await cli.run(["--no-agent", "token"], extraEnvironment: keyring.environment)
            #expect(back.status == 0, "\(back.stderr)")
            await keyring.stopDaemon()
        }
    }
}
