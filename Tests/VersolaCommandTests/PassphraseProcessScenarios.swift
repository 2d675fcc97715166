import Foundation
import Testing
import Versola
import VersolaJOSE

@testable import VersolaCommand

/// `versola login --key-source passphrase` with the real binary and agent: the passphrase is
/// read from a file descriptor (a terminal cannot be scripted here), handed to the agent, needed
/// again by a new agent (`versola unlock`), and given per command without one.
@Suite("passphrase profiles, end to end", .serialized)
struct PassphraseProcessScenarios {
    static let passphrase = "correct horse battery staple"

    @Test(
        "S10 P5: a passphrase profile is locked in a new agent until versola unlock; a wrong passphrase leaves it locked, the session intact"
    )
    func passphraseLifecycle() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let login = try await cli.run(
                [
                    "login", "--issuer", cli.idp.issuer, "--client-id", "versola-test", "--browser-command", CLIHarness.browser,
                    "--key-source", "passphrase", "--passphrase-fd", "0",
                ], stdin: Self.passphrase + "\n")
            #expect(login.status == 0, "login failed: \(login.stderr)")
            let passphraseFile = cli.home.path + "/state/versola/default/passphrase"
            #expect(FileManager.default.fileExists(atPath: passphraseFile))
            #expect(!FileManager.default.fileExists(atPath: cli.home.path + "/state/versola/key"), "a key file was made")
            // The login handed the passphrase to the agent: no question for the next commands.
            let token = try await cli.run(["token"])
            #expect(token.status == 0, "\(token.stderr)")

            // A new agent knows no passphrase: locked, still signed in, and the hint says what to run.
            #expect(try await cli.run(["agent", "--stop"]).status == 0)
            let record = cli.home.path + "/state/versola/default/session"
            let sealed = try #require(FileManager.default.contents(atPath: record))
            let status = try await cli.run(["status", "--json"])
            let value = try JSONValue(parsing: status.stdout)
            #expect(value["state"]?.string == "locked" && value["signedIn"]?.bool == true, "\(status.stdout)")
            let refused = try await cli.run(["token"])
            #expect(refused.status == ExitStatus.recoverable.rawValue, "\(refused.stderr)")
            #expect(refused.stderr.contains("versola unlock"), "\(refused.stderr)")

            let wrong = try await cli.run(["unlock", "--passphrase-fd", "0"], stdin: "Correct horse battery staple\n")
            #expect(wrong.status == ExitStatus.recoverable.rawValue, "\(wrong.stderr)")
            #expect(try await cli.run(["token"]).status == ExitStatus.recoverable.rawValue)
            #expect(FileManager.default.contents(atPath: record) == sealed)

            let unlock = try await cli.run(["unlock", "--passphrase-fd", "0"], stdin: Self.passphrase + "\n")
            #expect(unlock.status == 0, "\(unlock.stderr)")
            #expect(unlock.stdout.contains("Unlocked (profile default, authenticated)"), "\(unlock.stdout)")
            let unlocked = try await cli.run(["token"])
            #expect(unlocked.status == 0, "\(unlocked.stderr)")

            // Without the agent each command reads it itself, here from VERSOLA_PASSPHRASE_FD.
            let alone = try await cli.run(
                ["--no-agent", "token", "--force-refresh"], extraEnvironment: ["VERSOLA_PASSPHRASE_FD": "0"],
                stdin: Self.passphrase + "\n")
            #expect(alone.status == 0, "\(alone.stderr)")
            let aloneWrong = try await cli.run(
                ["--no-agent", "token"], extraEnvironment: ["VERSOLA_PASSPHRASE_FD": "0"], stdin: "nope\n")
            #expect(aloneWrong.status == ExitStatus.recoverable.rawValue, "\(aloneWrong.stderr)")
            #expect(try await cli.run(["logout"]).status == 0)
        }
    }

    @Test("P11 S10: a login may not move a signed-in profile to another key source; after logout it may")
    func keySourceChangeNeedsLogout() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let profileFile = cli.home.path + "/config/versola/profiles/default.json"
            let saved = try #require(FileManager.default.contents(atPath: profileFile))
            let moved = try await cli.run(
                ["login", "--browser-command", CLIHarness.browser, "--key-source", "passphrase", "--passphrase-fd", "0"],
                stdin: Self.passphrase + "\n")
            #expect(moved.status == ExitStatus.configuration.rawValue, "\(moved.stderr)")
            #expect(moved.stderr.contains("sign out first (versola logout)"), "\(moved.stderr)")
            #expect(FileManager.default.contents(atPath: profileFile) == saved)
            #expect(!FileManager.default.fileExists(atPath: cli.home.path + "/state/versola/default/passphrase"))
            #expect(try await cli.run(["token"]).status == 0)

            #expect(try await cli.run(["logout"]).status == 0)
            let afresh = try await cli.run(
                ["login", "--browser-command", CLIHarness.browser, "--key-source", "passphrase", "--passphrase-fd", "0"],
                stdin: Self.passphrase + "\n")
            #expect(afresh.status == 0, "\(afresh.stderr)")
            let token = try await cli.run(["token"])
            #expect(token.status == 0, "\(token.stderr)")
        }
    }

    @Test func unlockNeedsAPassphraseProfileThatHasOne() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let file = try await cli.run(["unlock"])
            #expect(file.status == 0)
            #expect(file.stdout.contains("nothing to unlock"), "\(file.stdout)")
            let noAgent = try await cli.run(["--no-agent", "unlock"], stdin: "x\n")
            #expect(noAgent.status == 0, "a key file profile has nothing to unlock, agent or not: \(noAgent.stderr)")
            let unknown = try await cli.run(["unlock", "--profile", "other"])
            #expect(unknown.status == ExitStatus.configuration.rawValue)
        }
    }
}
