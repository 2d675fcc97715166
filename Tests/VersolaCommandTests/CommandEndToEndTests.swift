import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand

/// The built `versola` binary against the test provider, as a user runs it.
@Suite("versola end to end", .serialized)
struct CommandEndToEndTests {
    // L1 (the browser command), L3 (profile file 0600), P4 (no access token on disk), E13 shapes.
    @Test func loginThenEveryCommand() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let login = try await cli.login(["--json"])
            let loginStatus = try JSONValue(parsing: login.stdout)
            #expect(loginStatus["state"] == "authenticated")
            #expect(loginStatus["user"]?["name"] == "Alice Example")
            #expect(!login.stderr.contains("Waiting"), "no indicator when output is piped")
            var info = stat()
            #expect(lstat(cli.home.path + "/config/versola/profiles/default.json", &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)

            let status = try await cli.run(["status", "--json"])
            #expect(status.status == 0)
            let statusValue = try JSONValue(parsing: status.stdout)
            #expect(statusValue["state"] == "authenticated")
            #expect(statusValue["signedIn"] == true)
            #expect(statusValue["issuer"]?.string == cli.idp.issuer)

            let token = try await cli.run(["token"])
            #expect(token.status == 0)
            let accessToken = token.stdout.trimmingBlanks.split(separator: "\n").first.map(String.init) ?? ""
            #expect(accessToken.count > 20)
            // P4: the access token is in the agent's memory, never in a file.
            for file in try allFiles(under: cli.home.path) {
                let contents = FileManager.default.contents(atPath: file) ?? Data()
                #expect(!String(decoding: contents, as: UTF8.self).contains(accessToken), "\(file) holds the access token")
            }
            // A warm agent answers from memory: the same token, no new token request.
            let tokenRequests = await cli.requestCount(.token)
            let again = try await cli.run(["token", "--format", "json"])
            #expect(try JSONValue(parsing: again.stdout)["accessToken"]?.string == accessToken)
            #expect(await cli.requestCount(.token) == tokenRequests)

            try await expectBoundTokenUses(cli)

            // T4: a forced refresh gets a new token.
            let forced = try await cli.run(["token", "--force-refresh"])
            #expect(forced.status == 0)
            #expect(forced.stdout.trimmingBlanks != accessToken + "\n")
            #expect(await cli.requestCount(.token) == tokenRequests + 1)

            let logout = try await cli.run(["logout"])
            #expect(logout.status == 0)
            let after = try await cli.run(["token", "--json"])
            #expect(after.status == 4)
            let error = try JSONValue(parsing: after.stderr)
            #expect(error["error"]?["category"] == "reauthenticate")
            #expect(error["error"]?["cause"] == "sessionExpired")
            #expect(after.stdout.isEmpty)
        }
    }

    /// What a DPoP-bound session serves besides `versola token`: kubectl gets the ID token (it
    /// sends no proofs, so the bound access token is refused for it), UserInfo, and a request
    /// to the provider's resource with a proof.
    private func expectBoundTokenUses(_ cli: CLIHarness) async throws {
        // kubectl sends no DPoP proofs: this DPoP-bound access token is refused for it; the ID
        // token (not bound) serves.
        let bound = try await cli.run(["token", "--format", "k8s"])
        #expect(bound.status == ExitStatus.configuration.rawValue)
        #expect(bound.stdout.isEmpty)
        let k8s = try JSONValue(parsing: try await cli.run(["token", "--format", "k8s", "--token", "id"]).stdout)
        #expect(k8s["apiVersion"] == "client.authentication.k8s.io/v1")
        #expect(k8s["kind"] == "ExecCredential")
        #expect(k8s["status"]?["token"]?.string?.split(separator: ".").count == 3)
        let timestamp = try #require(k8s["status"]?["expirationTimestamp"]?.string)
        #expect(timestamp.count == 20 && timestamp.hasSuffix("Z") && timestamp.contains("T"))

        let userInfo = try JSONValue(parsing: try await cli.run(["userinfo", "--json"]).stdout)
        #expect(userInfo["email"] == "alice@example.test")

        // A DPoP-bound request to the provider's resource.
        let resource = try await cli.run(["request", "--json", cli.idp.resourceURL])
        #expect(resource.status == 0)
        let response = try JSONValue(parsing: resource.stdout)
        #expect(response["status"] == 200)
        let resourceRequest = try #require(await cli.idp.provider.requests(to: .resource).last)
        #expect(resourceRequest.headers["Authorization"]?.hasPrefix("DPoP ") == true)
        #expect(resourceRequest.headers["DPoP"] != nil)
    }

    // T2: twenty shells asking at once, the agent started on demand by whichever comes first:
    // one refresh at the provider, one token for all.
    @Test func twentyConcurrentTokensMakeOneRefresh() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            // Signed in without an agent: the agent the tokens start has no access token yet.
            try await cli.login(["--no-agent"])
            let before = await cli.requestCount(.token)
            let outcomes = try await withThrowingTaskGroup(of: CLIHarness.Outcome.self) { group in
                for _ in 0..<20 { group.addTask { try await cli.run(["token"]) } }
                var all: [CLIHarness.Outcome] = []
                for try await outcome in group { all.append(outcome) }
                return all
            }
            #expect(outcomes.allSatisfy { $0.status == 0 }, "\(outcomes.map(\.stderr))")
            #expect(Set(outcomes.map(\.stdout)).count == 1)
            #expect(await cli.requestCount(.token) - before == 1)
        }
    }

    // P4/T2 agent hygiene: a socket file nobody listens on is replaced.
    @Test func staleAgentSocketIsReplaced() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login(["--no-agent"])
            let directory = try #require(AgentLocation.resolve(environment: cli.environment)).directory
            #expect(directory == cli.agentDirectory)
            // A socket file bound and abandoned, never listened on: connecting to it is refused.
            // (A listening one would go on accepting in the copy a process that another test
            // spawns at that moment holds until it execs, and the command would talk to that.)
            var address = try #require(UnixSocket.address(directory + "/agent.sock"))
            let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            #expect(bound == 0)
            close(stale)
            #expect(throws: UnixSocket.Failure.self) { try UnixSocket.connect(to: directory + "/agent.sock") }
            let token = try await cli.run(["token"])
            #expect(token.status == 0, "\(token.stderr)")
            let connection = try UnixSocket.connect(to: directory + "/agent.sock")
            close(connection)
        }
    }

    // Without XDG_RUNTIME_DIR the agent lives in a private directory under TMPDIR.
    @Test func missingRuntimeDirectoryFallsBack() async throws {
        let cli = try await CLIHarness(runtime: false)
        try await withHarness(cli) { cli in
            try await cli.login()
            #expect(try await cli.run(["token"]).status == 0)
            var info = stat()
            #expect(lstat(cli.agentDirectory, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o700)
            #expect(info.st_uid == getuid())
            #expect(lstat(cli.agentDirectory + "/agent.sock", &info) == 0)
        }
    }

    // --no-agent: in-process, through the store lock; no socket is made.
    @Test func noAgentRunsInProcess() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login(["--no-agent"])
            #expect(try await cli.run(["token", "--no-agent"]).status == 0)
            #expect(try await cli.run(["status"], extraEnvironment: ["VERSOLA_NO_AGENT": "1"]).stdout.contains("authenticated"))
            #expect(!FileManager.default.fileExists(atPath: cli.agentDirectory + "/agent.sock"))
        }
    }

    // Exit statuses 2 and 6, and E13 for a server error (status, retryAfter, failedRequests, elapsedMs).
    @Test func exitStatusesAndServerErrorShape() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            #expect(try await cli.run(["token", "--frob"]).status == 2)
            #expect(try await cli.run(["frob"]).status == 2)
            let noProfile = try await cli.run(["token", "--json"])
            #expect(noProfile.status == 6)
            #expect(try JSONValue(parsing: noProfile.stderr)["error"]?["cause"] == "invalidConfiguration")
            let plainHTTP = try await cli.run(["login", "--issuer", "http://example.com", "--client-id", "x"])
            #expect(plainHTTP.status == 6)

            try await cli.login()
            await cli.idp.provider.arm(
                TestFaultRule(.token, .respond(status: 503, headers: ["Retry-After": "120"]), times: nil))
            let busy = try await cli.run(["token", "--force-refresh", "--json"])
            #expect(busy.status == 3)
            let error = try #require(try JSONValue(parsing: busy.stderr)["error"])
            #expect(error["category"] == "recoverable")
            #expect(error["cause"] == "server")
            #expect(error["status"] == 503)
            #expect(error["retryAfter"] == 120)
            #expect(error["failedRequests"]?.int64 ?? 0 >= 1)
            #expect(error["elapsedMs"]?.int64 != nil)
            await cli.idp.provider.clearFaults()
        }
    }

    // Exit 4 on invalid_grant (E9) and exit 5 on a step-up demand (S5, A10).
    @Test func reauthenticateAndStepUpStatuses() async throws {
        let cli = try await CLIHarness(configure: { $0.resourceRequiredACR = "urn:versola:mfa" })
        try await withHarness(cli) { cli in
            try await cli.login()
            let stepUp = try await cli.run(["request", "--json", cli.idp.resourceURL])
            #expect(stepUp.status == 5, "\(stepUp.stderr)")
            let challenge = try #require(try JSONValue(parsing: stepUp.stderr)["error"])
            #expect(challenge["category"] == "stepUp")
            #expect(challenge["acrValues"] == ["urn:versola:mfa"])

            await cli.idp.provider.arm(
                TestFaultRule(.token, .respond(status: 400, body: "{\"error\":\"invalid_grant\"}"), times: nil))
            let rejected = try await cli.run(["token", "--force-refresh"])
            #expect(rejected.status == 4)
            // People read plain words; the cause's name is for scripts, in --json.
            #expect(rejected.stderr.contains("sign in again: versola login"))
            #expect(!rejected.stderr.contains("grantRejected"))
            let rejectedJSON = try await cli.run(["token", "--force-refresh", "--json"])
            #expect(rejectedJSON.status == 4)
            #expect(rejectedJSON.stderr.contains("\"category\":\"reauthenticate\""))
            await cli.idp.provider.clearFaults()
        }
    }

    // verify: discovery, JWKS, kid, algorithm allow-list, claims; a tampered token is rejected.
    @Test func verifyChecksATokenAsABackendWould() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let storage = try SessionStorage.standard(profile: "default", environment: cli.environment)
            let idToken = try #require(try await storage.store.load()?.idToken)
            let verified = try await cli.run(["verify", "--json", "--issuer", cli.idp.issuer, "--audience", "versola-test", idToken])
            #expect(verified.status == 0, "\(verified.stderr)")
            let result = try JSONValue(parsing: verified.stdout)
            #expect(result["valid"] == true)
            #expect(result["algorithm"] == "RS256")
            // The profile's issuer is used when --issuer is absent; the token may come on stdin.
            #expect(try await cli.run(["verify", "-"], stdin: idToken + "\n").status == 0)
            let wrongAudience = try await cli.run(["verify", "--audience", "someone-else", idToken])
            #expect(wrongAudience.status == 6)
            var parts = idToken.split(separator: ".").map(String.init)
            parts[2] = String(parts[2].reversed())
            let tampered = try await cli.run(["verify", "--json", parts.joined(separator: ".")])
            #expect(tampered.status == 6)
            #expect(try JSONValue(parsing: tampered.stderr)["error"]?["cause"] == "idTokenRejected")
        }
    }

    private func allFiles(under path: String) throws -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: path) else { return [] }
        var files: [String] = []
        while let name = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let full = path + "/" + name
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                var info = stat()
                if lstat(full, &info) == 0, info.st_mode & S_IFMT == S_IFREG { files.append(full) }
            }
        }
        return files
    }
}

/// The interactive parts of `versola login`: the pasted redirect, `handle-redirect` from
/// another process, and the waiting indicator on a terminal.
@Suite("versola login interaction", .serialized)
struct LoginInteractionTests {
    // L2: with --no-browser the URL is printed and the final redirect pasted on stdin completes it.
    @Test func pastedRedirectCompletesLogin() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let login = try await PastingLogin(cli)
            login.paste(login.redirect)
            let outcome = await cli.finished(login.child, stem: login.stem)
            login.close()
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout.contains("Signed in as Alice Example"))
            #expect(try await cli.run(["status"]).stdout.contains("authenticated"))
        }
    }

    // L2: another process hands the redirect to the persisted pending request (P1, P2).
    // Without DPoP: the session does not yet persist the DPoP key of a pending request, so a
    // DPoP-bound login can only be completed by the process that started it.
    @Test func handleRedirectFromAnotherProcess() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let captured = cli.home.path + "/url"
            let stem = cli.home.path + "/login"
            let login = try cli.spawn(
                CLIHarness.executable,
                ["login", "--issuer", cli.idp.issuer, "--client-id", "versola-test", "--no-dpop", "--browser-command",
                 "sh -c 'echo \"$0\" > \(captured)' %s"],
                stem: stem)
            defer { kill(login, SIGKILL) }
            let url = try #require(await cli.contents(of: captured, containing: "\n")).trimmingBlanks
            let redirect = try #require(try await cli.finalRedirect(from: url.replacingOccurrences(of: "\n", with: "")))
            let handed = try await cli.run(["handle-redirect", "--json", redirect])
            #expect(handed.status == 0, "\(handed.stderr)")
            #expect(try JSONValue(parsing: handed.stdout)["state"] == "authenticated")
            // P11: the login's settings became the profile only now that it succeeded.
            let profile = cli.home.path + "/config/versola/profiles/default.json"
            #expect(FileManager.default.fileExists(atPath: profile))
            #expect(!FileManager.default.fileExists(atPath: profile + "+pending"))
            #expect(try await cli.run(["token"]).status == 0)
            // The same redirect again: the pending request is gone.
            #expect(try await cli.run(["handle-redirect", redirect]).status == 3)
            kill(login, SIGKILL)
            _ = await cli.finished(login, stem: stem)
        }
    }

    /// Opens the sign-in URL found in `text` the way a browser elsewhere on this machine would:
    /// through the provider's redirects to the login's loopback listener.
    static func openSignIn(in text: String, cli: CLIHarness) async throws {
        let words = text.split(whereSeparator: { $0.isNewline || $0 == " " }).map(String.init)  // "\r\n" is one Character
        let url = try #require(words.first { $0.hasPrefix("http") && $0.contains("/authorize?") })
        let redirect = try #require(try await cli.finalRedirect(from: url), "\(url.debugDescription)")
        let stem = cli.home.path + "/open-" + UUID().uuidString.prefix(8)
        _ = await cli.finished(try cli.spawn("curl", ["-s", "-o", "/dev/null", redirect], stem: stem), stem: stem)
    }

    // --no-browser with nothing to read on standard input: the login says it waits for a
    // browser alone, and a browser elsewhere still completes it.
    @Test func noBrowserWithClosedInputSaysItWaitsForABrowser() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let stem = cli.home.path + "/login"
            let login = try cli.spawn(
                CLIHarness.executable, ["login", "--issuer", cli.idp.issuer, "--client-id", "versola-test", "--no-browser"],
                stem: stem)
            let said = try #require(await cli.contents(of: stem + ".err", containing: "standard input is closed"))
            #expect(said.contains("waiting for a browser to reach http://127.0.0.1:"))
            try await Self.openSignIn(in: said, cli: cli)
            let outcome = await cli.finished(login, stem: stem)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout.contains("Signed in as"))
        }
    }

    // While a pasted address is read from the terminal, nothing is redrawn over what is typed:
    // no live indicator (with a browser, the test below shows it drawn).
    @Test func noIndicatorWhileTheTerminalTakesAPaste() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let command = "\(CLIHarness.executable) login --issuer \(cli.idp.issuer) --client-id versola-test --no-browser"
            let stem = cli.home.path + "/pty"
            let fifo = cli.home.path + "/keys"
            try #require(mkfifo(fifo, 0o600) == 0)
            let script = try cli.spawn("script", ["-q", "-e", "-c", command, "/dev/null"], stem: stem, input: fifo)
            // Hold the terminal's input open (nothing typed) while the sign-in happens elsewhere.
            let keys = open(fifo, O_WRONLY)
            try #require(keys >= 0)
            let shown = try #require(await cli.contents(of: stem + ".out", containing: "paste the address"))
            try await Self.openSignIn(in: shown, cli: cli)
            let outcome = await cli.finished(script, stem: stem)
            close(keys)
            #expect(outcome.status == 0, "\(outcome.stdout)")
            #expect(outcome.stdout.contains("Signed in as"))
            #expect(!outcome.stdout.contains("Waiting for the sign-in in the browser"), "\(outcome.stdout)")
        }
    }

    // On a terminal (a pseudo-terminal through script(1)) the live indicator is drawn; the
    // piped runs of the other tests show none.
    @Test func waitingIndicatorOnATerminal() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let command = "\(CLIHarness.executable) login --issuer \(cli.idp.issuer) --client-id versola-test "
                + "--browser-command 'curl -sL -o /dev/null %s'"
            let stem = cli.home.path + "/pty"
            let script = try cli.spawn("script", ["-q", "-e", "-c", command, "/dev/null"], stem: stem)
            let outcome = await cli.finished(script, stem: stem)
            #expect(outcome.status == 0, "\(outcome.stdout)")
            #expect(outcome.stdout.contains("Waiting for the sign-in in the browser"))
            #expect(outcome.stdout.contains("Signed in as"))
            #expect(outcome.stdout.contains("\u{1B}["))
        }
    }
}
