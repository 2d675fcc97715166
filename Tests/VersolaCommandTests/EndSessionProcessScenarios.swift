import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand

/// `logout --end-session` with a real browser process (A15, L1): the ID token reaches the
/// provider as `id_token_hint`, but never a command line, the output or the `--json` reply.
@Suite("versola logout --end-session", .serialized)
struct EndSessionProcessScenarios {
    /// A browser that records its arguments, and every process command line it can read that
    /// holds `marker` (the bracket keeps its own command line from matching), then follows
    /// the address as the headless browser does, and asks for it once more.
    static func recordingBrowser(in directory: String, marker: String?, issuer: String) -> String {
        let scan =
            marker.map { marker in
                let pattern = String(marker.dropLast()) + "[" + String(marker.suffix(1)) + "]"
                return """
                    for f in /proc/[0-9]*/cmdline; do tr '\\000' ' ' < "$f" 2>/dev/null; echo; done \
                      | grep -e '\(pattern)' -e 'id_token_hin[t]' >> '\(directory)/seen'
                    """
            } ?? ""
        return """
            #!/bin/sh
            printf '%s\\n' "$*" >> '\(directory)/argv'
            \(scan)
            curl -sL -o /dev/null "$1"
            case "$1" in
              '\(issuer)'*) ;;
              *) curl -s -o /dev/null -w '%{http_code}\\n' "$1" >> '\(directory)/again' ;;
            esac
            echo done >> '\(directory)/done'
            """
    }

    /// The session's ID token, from `versola token --token id`.
    static func idToken(_ cli: CLIHarness) async throws -> String {
        let output = try await cli.run(["token", "--token", "id"]).stdout
        let token = output.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        #expect(token.split(separator: ".").count == 3)
        return token
    }

    @Test("A15 L1: the end-session page opens through a one-time loopback page; no command line, output or JSON holds the ID token")
    func noTokenOnArgv() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let directory = cli.home.path + "/browser"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let script = directory + "/browser.sh"
            try CLIHarness.writeExecutable(
                Array(Self.recordingBrowser(in: directory, marker: nil, issuer: cli.idp.issuer).utf8), to: script)
            try await cli.login(["--browser-command", script])
            let idToken = try await Self.idToken(cli)
            // The scan looks for the token's signature, which only the token holds.
            let marker = String(idToken.suffix(24))
            try CLIHarness.writeExecutable(
                Array(Self.recordingBrowser(in: directory, marker: marker, issuer: cli.idp.issuer).utf8), to: script)
            unlink(directory + "/argv")
            unlink(directory + "/done")

            let logout = try await cli.run(["logout", "--end-session", "--json"])
            #expect(logout.status == 0, "\(logout.stderr)")
            #expect(logout.stderr.contains("Opened the provider's sign-out page in the browser."))
            let reply = try JSONValue(parsing: logout.stdout)
            #expect(reply[AgentLogoutResult.targetMember] == nil)
            let shown = try #require(reply["endSessionURL"]?.string)
            #expect(shown.hasPrefix(cli.idp.issuer) && shown.contains("client_id=versola-test"))
            for text in [logout.stdout, logout.stderr] {
                #expect(!text.contains(marker) && !text.contains("id_token_hint"))
            }

            // The browser runs on by itself after the command is done with it: wait for its end.
            #expect(await cli.contents(of: directory + "/done", containing: "done") != nil)
            let argv = (try? String(contentsOfFile: directory + "/argv", encoding: .utf8)) ?? ""
            #expect(argv.hasPrefix("http://127.0.0.1:"), "\(argv)")
            #expect(!argv.contains(marker) && !argv.contains("id_token_hint"))
            let seen = (try? String(contentsOfFile: directory + "/seen", encoding: .utf8)) ?? ""
            #expect(seen.isEmpty, "a command line held the ID token: \(seen.count) characters")
            // The loopback address worked once.
            let again = (try? String(contentsOfFile: directory + "/again", encoding: .utf8)) ?? ""
            #expect(!again.isEmpty && !again.contains("303"), "\(again)")

            // The provider got the hint all the same: RP-initiated logout works as before.
            let ended = try #require(await cli.idp.provider.requests(to: .endSession).last)
            let query = URLComponents(string: "http://provider" + ended.target)?.queryItems ?? []
            // Compared as a truth value, so that a failure never prints the token.
            let hinted = query.first { $0.name == "id_token_hint" }?.value == idToken
            #expect(hinted, "the provider did not get the session's ID token as id_token_hint")
            #expect(query.first { $0.name == "client_id" }?.value == "versola-test")
        }
    }

    @Test("A15: without a browser, the address printed holds no ID token")
    func printedAddressHoldsNoToken() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let idToken = try await Self.idToken(cli)
            // A browser command that cannot start.
            let settings = cli.home.path + "/config/versola/profiles/default.json"
            let text = try String(contentsOfFile: settings, encoding: .utf8)
            try text.replacingOccurrences(of: CLIHarness.browser, with: "/nonexistent/browser %s")
                .write(toFile: settings, atomically: true, encoding: .utf8)
            chmod(settings, 0o600)
            let logout = try await cli.run(["logout", "--end-session"])
            #expect(logout.status == 0, "\(logout.stderr)")
            #expect(logout.stderr.contains("To sign out at the provider too, open:\n  \(cli.idp.issuer)"))
            #expect(!logout.stderr.contains(String(idToken.suffix(24))) && !logout.stderr.contains("id_token_hint"))
            #expect(await cli.requestCount(.endSession) == 0)
        }
    }
}
