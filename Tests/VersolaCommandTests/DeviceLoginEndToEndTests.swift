import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand

/// `versola login` on a machine without a browser (A14, L1): the real command against the
/// test provider, the person played by curl at the verification page (the provider signs the
/// test user in by itself). The provider's poll interval is 1 s so that the real waits stay short.
@Suite("versola login on another device", .serialized)
struct DeviceLoginEndToEndTests {
    static func harness() async throws -> CLIHarness {
        try await CLIHarness(configure: { $0.deviceInterval = 1 })
    }

    private func storedRecord(_ cli: CLIHarness) async throws -> SessionRecord? {
        try await SessionStorage.standard(profile: "default", environment: cli.environment).store.load()
    }

    /// Starts `versola login` with `arguments` and waits until it shows the page that carries the
    /// code; returns the process, its output stem, and what it printed so far.
    private func startLogin(_ cli: CLIHarness, _ arguments: [String]) async throws -> (pid_t, String, String) {
        let stem = cli.home.path + "/login-" + UUID().uuidString.prefix(8)
        let login = try cli.spawn(
            CLIHarness.executable, ["login", "--issuer", cli.idp.issuer, "--client-id", "versola-test"] + arguments,
            stem: stem)
        guard let shown = await cli.contents(of: stem + ".err", containing: "Waiting here for the approval") else {
            kill(login, SIGKILL)
            _ = await cli.finished(login, stem: stem)
            throw CocoaError(.fileReadNoSuchFile)
        }
        return (login, stem, shown)
    }

    /// The line after `label` in what the login printed.
    private func line(after label: String, in text: String) -> String? {
        let lines = text.split(separator: "\n").map { String($0).trimmingBlanks }
        guard let index = lines.firstIndex(where: { $0.hasPrefix(label) }), index + 1 < lines.count else { return nil }
        return lines[index + 1]
    }

    /// The person opens the page that carries the code (curl; the provider approves at once).
    private func approve(_ cli: CLIHarness, page: String) async throws {
        let stem = cli.home.path + "/curl-" + UUID().uuidString.prefix(8)
        let curl = try cli.spawn("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", page], stem: stem)
        #expect(await cli.finished(curl, stem: stem).stdout == "200")
    }

    @Test("A14 L1: with no browser to start, versola login shows a code, polls, signs in; then versola token works")
    func chosenWithoutBrowser() async throws {
        let cli = try await Self.harness()
        try await withHarness(cli) { cli in
            let (login, stem, shown) = try await startLogin(cli, [])
            #expect(shown.contains("No browser can be started here"))
            #expect(line(after: "To sign in, open this page", in: shown) == cli.idp.issuer + "/device")
            let code = try #require(line(after: "and enter the code", in: shown))
            #expect(code.count == 9 && code.contains("-"))
            let page = try #require(line(after: "Or open this page", in: shown))
            #expect(page == cli.idp.issuer + "/device?user_code=" + code)
            #expect(shown.contains("The code expires in 10 minutes"))
            #expect(try await storedRecord(cli)?.pendingDeviceAuthorization?.userCode == code, "P1: on disk while it waits")
            try await approve(cli, page: page)
            let outcome = await cli.finished(login, stem: stem)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout.contains("Signed in as Alice Example"))
            #expect(try await storedRecord(cli)?.pendingRequest == nil)
            let token = try await cli.run(["token"])
            #expect(token.status == 0, "\(token.stderr)")
            #expect(!token.stdout.trimmingBlanks.isEmpty)
            #expect(try await cli.run(["token", "--no-agent", "--force-refresh"]).status == 0)
            let status = try JSONValue(parsing: try await cli.run(["status", "--json"]).stdout)
            #expect(status["state"] == "authenticated")
            // The secret never reaches the terminal: only the user code does.
            let deviceRequests = await cli.idp.provider.requests(to: .token).compactMap { $0.formValue("device_code") }
            #expect(!deviceRequests.isEmpty)
            for deviceCode in deviceRequests { #expect(!outcome.stderr.contains(deviceCode) && !outcome.stdout.contains(deviceCode)) }
        }
    }

    @Test("A14: --device signs in with a code even where a browser could be started, DPoP-bound by default")
    func explicitDevice() async throws {
        let cli = try await Self.harness()
        try await withHarness(cli) { cli in
            let (login, stem, shown) = try await startLogin(cli, ["--device", "--browser-command", "false"])
            #expect(!shown.contains("No browser can be started here"))
            #expect(shown.contains("Tokens: DPoP-bound"))
            let page = try #require(line(after: "Or open this page", in: shown))
            try await approve(cli, page: page)
            let outcome = await cli.finished(login, stem: stem)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let token = try JSONValue(parsing: try await cli.run(["token", "--format", "json"]).stdout)
            #expect(token["tokenType"] == "DPoP")
            #expect(try await cli.run(["userinfo"]).status == 0)
        }
    }

    @Test("A14 E7: Ctrl-C while versola login --device polls is a user cancel; the device request is wiped")
    func ctrlCWhilePolling() async throws {
        let cli = try await Self.harness()
        try await withHarness(cli) { cli in
            let (login, stem, _) = try await startLogin(cli, ["--device"])
            #expect(try await storedRecord(cli)?.pendingDeviceAuthorization != nil)
            kill(login, SIGINT)
            let outcome = await cli.finished(login, stem: stem)
            #expect(outcome.status == 3, "recoverable, not a signal death: \(outcome.stderr)")
            #expect(outcome.stderr.contains("sign-in cancelled; nothing changed"))
            #expect(try await storedRecord(cli) == nil, "the device request is wiped")
            #expect(try await cli.run(["token"]).status == 6, "no profile was saved: run versola login")
        }
    }

    @Test("A14 P2: a killed versola login --device is taken up by the next one: the same code, no new request")
    func killedLoginResumes() async throws {
        let cli = try await Self.harness()
        try await withHarness(cli) { cli in
            let (first, firstStem, shown) = try await startLogin(cli, ["--device"])
            kill(first, SIGKILL)
            _ = await cli.finished(first, stem: firstStem)
            let code = try #require(line(after: "and enter the code", in: shown))
            let (second, stem, again) = try await startLogin(cli, ["--device"])
            #expect(again.contains("Going on with the sign-in started earlier"))
            #expect(line(after: "and enter the code", in: again) == code)
            try await approve(cli, page: try #require(line(after: "Or open this page", in: again)))
            let outcome = await cli.finished(second, stem: stem)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(await cli.requestCount(.deviceAuthorization) == 1, "no new code was asked for")
            #expect(try await cli.run(["token"]).status == 0)
        }
    }

    @Test("A14: --device with flags only the browser flow sends is refused before any request, saying which")
    func browserOnlyFlagsRefused() async throws {
        let cli = try await Self.harness()
        try await withHarness(cli) { cli in
            let outcome = try await cli.run(
                ["login", "--issuer", cli.idp.issuer, "--client-id", "versola-test", "--device", "--acr-values", "mfa"])
            #expect(outcome.status != 0)
            #expect(outcome.stderr.contains("--acr-values"))
            #expect(await cli.requestCount(.deviceAuthorization) == 0)
            let both = try await cli.run(["login", "--device", "--no-browser"])
            #expect(both.status == 2, "a usage error: \(both.stderr)")
            #expect(both.stderr.contains("choose one"))
        }
    }
}
