import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand

/// A login that fails or is cancelled leaves the user as it found them (S4, P9, P11, E7): the
/// saved profile byte for byte, the stored session still serving tokens, no pending request.
@Suite("versola login failures", .serialized)
struct LoginFailureScenarios {
    private func profilePath(_ cli: CLIHarness) -> String {
        cli.home.path + "/config/versola/profiles/default.json"
    }

    private func storedRecord(_ cli: CLIHarness) async throws -> SessionRecord? {
        try await SessionStorage.standard(profile: "default", environment: cli.environment).store.load()
    }

    @Test("P11 S4 P9: a re-login with a mistyped issuer leaves the profile byte-identical and the old session serving tokens")
    func failedReloginKeepsProfileAndSession() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            #expect(try await cli.run(["token"]).status == 0)
            let before = try #require(FileManager.default.contents(atPath: profilePath(cli)))
            let storedBefore = try await storedRecord(cli)?.refreshToken

            let typo = try await cli.run([
                "login", "--issuer", cli.idp.issuer + "/typo", "--client-id", "versola-test", "--browser-command", CLIHarness.browser,
            ])
            #expect(typo.status != 0, "\(typo.stdout)")
            #expect(FileManager.default.contents(atPath: profilePath(cli)) == before, "the profile file is byte-identical")
            #expect(!FileManager.default.fileExists(atPath: profilePath(cli) + "+pending"))
            #expect(try await storedRecord(cli)?.refreshToken == storedBefore)

            // The old session still serves tokens: through the agent, and in-process from the files.
            let token = try await cli.run(["token"])
            #expect(token.status == 0, "\(token.stderr)")
            let fresh = try await cli.run(["token", "--no-agent", "--force-refresh"])
            #expect(fresh.status == 0, "\(fresh.stderr)")
            let status = try JSONValue(parsing: try await cli.run(["status", "--json"]).stdout)
            #expect(status["state"] == "authenticated")
            #expect(status["issuer"]?.string == cli.idp.issuer)
        }
    }

    @Test("P11: a first login that fails leaves no profile behind")
    func failedFirstLoginSavesNoProfile() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let typo = try await cli.run([
                "login", "--issuer", cli.idp.issuer + "/typo", "--client-id", "versola-test", "--browser-command", CLIHarness.browser,
            ])
            #expect(typo.status != 0)
            #expect(!FileManager.default.fileExists(atPath: profilePath(cli)))
            #expect(!FileManager.default.fileExists(atPath: profilePath(cli) + "+pending"))
            #expect(try await cli.run(["token"]).status == 6, "no profile: run versola login")
        }
    }

    /// Starts `versola login` with a browser that only records the URL, waits until the
    /// browser was opened (the pending request is then on disk, P1), and presses Ctrl-C.
    private func interruptedLogin(_ cli: CLIHarness, extra: [String] = []) async throws -> CLIHarness.Outcome {
        let captured = cli.home.path + "/url-" + UUID().uuidString.prefix(8)
        let stem = cli.home.path + "/login-" + UUID().uuidString.prefix(8)
        let login = try cli.spawn(
            CLIHarness.executable,
            ["login", "--issuer", cli.idp.issuer, "--client-id", "versola-test", "--no-dpop", "--browser-command",
             "sh -c 'echo \"$0\" > \(captured)' %s"] + extra,
            stem: stem)
        let url = await cli.contents(of: captured, containing: "\n")
        #expect(url?.contains("/authorize?") == true)
        #expect(try await storedRecord(cli)?.pendingAuthorization != nil, "the pending request is on disk")
        kill(login, SIGINT)
        return await cli.finished(login, stem: stem)
    }

    @Test("E7 P11: Ctrl-C during a first login is a user cancel, said in words; no pending request or profile is left")
    func ctrlCDuringFirstLogin() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let outcome = try await interruptedLogin(cli)
            #expect(outcome.status == 3, "recoverable, not a signal death: \(outcome.stderr)")
            #expect(outcome.stderr.contains("sign-in cancelled; nothing changed"))
            #expect(try await storedRecord(cli)?.pendingAuthorization == nil, "the pending request is wiped")
            #expect(!FileManager.default.fileExists(atPath: profilePath(cli)), "no profile saved")
            #expect(!FileManager.default.fileExists(atPath: profilePath(cli) + "+pending"))
            #expect(await cli.requestCount(.token) == 0)
        }
    }

    @Test("E7 S4 P9: Ctrl-C during a re-login returns to the live session and wipes the pending request")
    func ctrlCDuringReloginKeepsTheSession() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login(["--no-dpop"])
            let before = try #require(FileManager.default.contents(atPath: profilePath(cli)))
            let outcome = try await interruptedLogin(cli, extra: ["--json", "--scope", "openid offline_access profile"])
            #expect(outcome.status == 3)
            let last = try #require(outcome.stderr.split(separator: "\n").last.map(String.init))
            let error = try JSONValue(parsing: last)["error"]
            #expect(error?["category"] == "recoverable")
            #expect(error?["cause"] == "userCancelled")
            let status = try JSONValue(parsing: try await cli.run(["status", "--json"]).stdout)
            #expect(status["state"] == "authenticated")
            let record = try await storedRecord(cli)
            #expect(record?.pendingAuthorization == nil)
            #expect(record?.refreshToken != nil)
            #expect(FileManager.default.contents(atPath: profilePath(cli)) == before)
            #expect(try await cli.run(["token", "--no-agent", "--force-refresh"]).status == 0)
        }
    }

    @Test("L6 L2: a pasted redirect of another sign-in is a message, and the login waits for its own")
    func mismatchedPasteKeepsWaiting() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let login = try await PastingLogin(cli)
            defer { login.close() }
            let port = try #require(URL(string: login.redirect)?.port)
            login.paste("http://127.0.0.1:\(port)/callback?code=forged&state=someone-else")
            let message = await cli.contents(of: login.stem + ".err", containing: "still waiting")
            #expect(message?.contains("belongs to another sign-in") == true)
            login.paste(login.redirect)
            let outcome = await cli.finished(login.child, stem: login.stem)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout.contains("Signed in as Alice Example"))
            #expect(await cli.requestCount(.token) == 1, "only the genuine code was exchanged")
        }
    }

    @Test("L2 P11 P9: handle-redirect from another process finishes a re-login; the profile changes only then, and a second delivery exchanges nothing")
    func handleRedirectForARelogin() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let before = try #require(FileManager.default.contents(atPath: profilePath(cli)))
            let captured = cli.home.path + "/url"
            let stem = cli.home.path + "/relogin"
            let login = try cli.spawn(
                CLIHarness.executable,
                ["login", "--issuer", cli.idp.issuer, "--client-id", "versola-test", "--scope", "openid offline_access profile",
                 "--browser-command", "sh -c 'echo \"$0\" > \(captured)' %s"],
                stem: stem)
            let url = try #require(await cli.contents(of: captured, containing: "\n")).trimmingBlanks
            let redirect = try #require(try await cli.finalRedirect(from: url.replacingOccurrences(of: "\n", with: "")))
            #expect(FileManager.default.contents(atPath: profilePath(cli)) == before, "unchanged while the login waits")
            let handed = try await cli.run(["handle-redirect", redirect])
            #expect(handed.status == 0, "\(handed.stderr)")
            #expect(handed.stdout.contains("Handed the redirect"))
            let outcome = await cli.finished(login, stem: stem)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout.contains("Signed in as Alice Example"))
            let after = try #require(FileManager.default.contents(atPath: profilePath(cli)))
            #expect(after != before, "the re-login's settings are saved once it succeeded")
            #expect(String(decoding: after, as: UTF8.self).contains("profile"))
            #expect(!FileManager.default.fileExists(atPath: profilePath(cli) + "+pending"))
            let exchanges = await cli.idp.provider.requests(to: .token).filter { $0.formValue("grant_type") == "authorization_code" }
            #expect(exchanges.count == 2)
            // The same redirect again: nothing waits for it and nothing is exchanged.
            #expect(try await cli.run(["handle-redirect", redirect]).status == 3)
            let later = await cli.idp.provider.requests(to: .token).filter { $0.formValue("grant_type") == "authorization_code" }
            #expect(later.count == 2)
            #expect(try await cli.run(["token"]).status == 0)
        }
    }
}
