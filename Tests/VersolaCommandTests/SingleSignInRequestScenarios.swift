import Foundation
import Testing
import VersolaTestIdP
@testable import VersolaCommand

/// S15 for `versola request` callers: N of them at once, each on a terminal of its own
/// (script(1)), ask an API that wants more scope than the session holds (A20's step-up). One
/// of them signs in for the scopes; the others wait for that sign-in and send their request
/// once more: one browser launch, one authorization request, one code exchange, N answers,
/// and at the provider no new live grant but the session's. Each waiter counts no step-up of
/// its own (A20's limit of two in a row is the owner's to take).
@Suite("S15: versola request callers share one step-up sign-in", .serialized)
struct SingleSignInRequestScenarios {
    @Test("S15 A20: request callers on terminals that need a step-up at once share one browser tab, request and code exchange, and leave one live grant",
          arguments: [2, 6, 20])
    func requestCallersShareOneSignIn(callers: Int) async throws {
        try await Self.withSignedInForLessScope { cli, mcp in
            let authorize = await cli.requestCount(.authorize)
            let exchanges = await Self.codeExchanges(cli)
            let liveBefore = await cli.idp.provider.liveFamilyCount
            let command = "'\(CLIHarness.executable)' request '\(mcp)'"
            let outcomes = try await withThrowingTaskGroup(of: CLIHarness.Outcome.self) { group in
                for caller in 0..<callers {
                    let stem = cli.home.path + "/terminal-\(caller)"
                    let pid = try cli.spawn("/usr/bin/script", ["-qec", command, "/dev/null"], stem: stem)
                    group.addTask { await cli.finished(pid, stem: stem) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for outcome in outcomes {
                #expect(outcome.status == 0, "\(outcome.stdout)")
                #expect(outcome.stdout.contains("\"resource\":\"ok\""), "the API's answer: \(outcome.stdout)")
            }
            let launches = SingleSignInScenarios.launches(cli).count
            let authorized = await cli.requestCount(.authorize) - authorize
            let exchanged = await Self.codeExchanges(cli) - exchanges
            let live = await cli.idp.provider.liveFamilyCount - liveBefore
            print("S15 \(callers) request callers: \(launches) browser launches, \(authorized) authorize, \(exchanged) code exchanges, \(live) new live grant (\(liveBefore) before)")
            #expect(launches == 1, "browser launches")
            #expect(authorized == 1, "authorization requests")
            #expect(exchanged == 1, "code exchanges")
            // The grant the step-up replaced is the first login's, not the callers': no rule
            // revokes it. The callers leave one grant, the session's, and none that lost a race.
            #expect(live == 1, "grants the callers' sign-in left alive at the provider: the session's alone")
        }
    }

    @Test("S15 A20: a request caller's own wait limit ends only it; killing the owner of the step-up sign-in lets a waiting request caller sign in")
    func killedOwnerFreesRequestCallers() async throws {
        try await Self.withSignedInForLessScope { cli, mcp in
            try #require(FileManager.default.createFile(atPath: cli.home.path + "/hang", contents: Data()))
            defer { for pid in SingleSignInScenarios.launches(cli) { kill(pid, SIGKILL) } }
            let command = "'\(CLIHarness.executable)' request '\(mcp)'"
            func terminal(_ name: String, _ environment: [String: String] = [:]) throws -> (pid: pid_t, stem: String) {
                let stem = cli.home.path + "/" + name
                return (try cli.spawn("/usr/bin/script", ["-qec", command, "/dev/null"], extraEnvironment: environment, stem: stem), stem)
            }
            // The owner's browser is open, and never finishes.
            let owner = try terminal("owner")
            try #require(await cli.contents(of: cli.home.path + "/launches", containing: "\n") != nil, "the owner opened no browser")
            let impatient = try terminal("impatient", ["VERSOLA_SIGN_IN_WAIT": "1"])
            let gaveUp = await cli.finished(impatient.pid, stem: impatient.stem)
            #expect(gaveUp.status != 0 && gaveUp.stdout.contains("waiting for the sign-in already running"), "\(gaveUp.stdout)")
            #expect(gaveUp.stdout.contains("gave up after 1 s"), "\(gaveUp.stdout)")
            #expect(kill(owner.pid, 0) == 0, "the owner runs on")
            let waiter = try terminal("waiter")
            #expect(await cli.contents(of: waiter.stem + ".out", containing: "waiting for the sign-in already running") != nil)
            let signingIn = try #require(Self.command(under: owner.pid), "no versola under the owner's terminal")
            kill(signingIn, SIGKILL)
            _ = await cli.finished(owner.pid, stem: owner.stem)
            let taken = await cli.finished(waiter.pid, stem: waiter.stem)
            #expect(taken.status == 0, "\(taken.stdout)")
            #expect(taken.stdout.contains("\"resource\":\"ok\""), "the API's answer after the waiter's own sign-in: \(taken.stdout)")
            #expect(SingleSignInScenarios.launches(cli).count == 2, "the waiter opened the one browser after the owner died")
        }
    }

    @Test("S15 A20: a request caller refused under the old session, whose refusal arrives after another caller's step-up sign-in ended, asks again instead of signing in a second time")
    func refusalAfterAnotherSignInEnded() async throws {
        try await Self.withSignedInForLessScope { cli, mcp in
            let command = "'\(CLIHarness.executable)' request '\(mcp)'"
            func terminal(_ name: String) throws -> (pid: pid_t, stem: String) {
                let stem = cli.home.path + "/" + name
                return (try cli.spawn("/usr/bin/script", ["-qec", command, "/dev/null"], stem: stem), stem)
            }
            let exchanges = await Self.codeExchanges(cli)
            let seen = await cli.requestCount(.resource)
            // The late caller's request is held at the API until the other caller is done; then it
            // is answered under the token it carried, the old session's: 403 for more scope. It
            // reaches the sign-in lock after the other's sign-in released it, so it never waits.
            await cli.idp.provider.arm(TestFaultRule(.resource, .holdUntilReleased))
            let late = try terminal("late")
            try await AgentWorkScenarios.waitFor(cli, .resource, count: seen + 1)
            let first = try terminal("first")
            let firstOutcome = await cli.finished(first.pid, stem: first.stem)
            #expect(firstOutcome.status == 0 && firstOutcome.stdout.contains("\"resource\":\"ok\""), "\(firstOutcome.stdout)")
            await cli.idp.provider.releaseHeld()
            let lateOutcome = await cli.finished(late.pid, stem: late.stem)
            #expect(lateOutcome.status == 0, "\(lateOutcome.stdout)")
            #expect(lateOutcome.stdout.contains("\"resource\":\"ok\""), "the API's answer under the other's sign-in: \(lateOutcome.stdout)")
            #expect(SingleSignInScenarios.launches(cli).count == 1, "browser launches")
            #expect(await Self.codeExchanges(cli) - exchanges == 1, "code exchanges")
        }
    }

    @Test("S15: callers that cannot sign in (a request and a token, no terminal) told the profile is signed out while another process signs in for it wait for that sign-in and are answered by its session")
    func signedOutCallersWaitForAnotherSignIn() async throws {
        let cli = try await ResourceMCPCommandScenarios.harness { _ in }
        try await withHarness(cli) { cli in
            let mcp = String(cli.idp.resourceURL.dropLast("/resource".count)) + "/mcp"
            // The browser waits for the scenario's word, so the sign-in is surely running meanwhile.
            let browser = cli.home.path + "/gated-browser.sh"
            let script = """
                #!/bin/sh
                echo "$$" >> "$HOME/launches"
                while [ ! -e "$HOME/go" ]; do sleep 0.02; done
                exec curl -sL -o /dev/null "$1"

                """
            try CLIHarness.writeExecutable(Array(script.utf8), to: browser)
            try #require(FileManager.default.createFile(atPath: cli.home.path + "/go", contents: Data()))
            let first = try await cli.run(["login", "--resource", mcp, "--browser-command", browser + " %s"])
            try #require(first.status == 0, "\(first.stderr)")
            let profile = try #require(ResourceProfile.name(for: mcp))
            try #require(try await cli.run(["logout", "--profile", profile]).status == 0)
            unlink(cli.home.path + "/go")
            unlink(cli.home.path + "/launches")

            let ownerStem = cli.home.path + "/owner"
            let owner = try cli.spawn(
                CLIHarness.executable, ["login", "--resource", mcp, "--browser-command", browser + " %s"], stem: ownerStem)
            try #require(await cli.contents(of: cli.home.path + "/launches", containing: "\n") != nil, "the owner opened no browser")
            let requestStem = cli.home.path + "/request", tokenStem = cli.home.path + "/token"
            let request = try cli.spawn(CLIHarness.executable, ["request", mcp], stem: requestStem)
            let token = try cli.spawn(CLIHarness.executable, ["token", "--resource", mcp], stem: tokenStem)
            let waiting = "waiting for the sign-in already running"
            #expect(await cli.contents(of: requestStem + ".err", containing: waiting) != nil, "the request caller did not wait")
            #expect(await cli.contents(of: tokenStem + ".err", containing: waiting) != nil, "the token caller did not wait")
            try #require(FileManager.default.createFile(atPath: cli.home.path + "/go", contents: Data()))
            let signedIn = await cli.finished(owner, stem: ownerStem)
            #expect(signedIn.status == 0, "\(signedIn.stderr)")
            let answered = await cli.finished(request, stem: requestStem)
            #expect(answered.status == 0 && answered.stdout.contains("\"resource\":\"ok\""), "\(answered.stdout) \(answered.stderr)")
            let printed = await cli.finished(token, stem: tokenStem)
            #expect(printed.status == 0 && !printed.stdout.isEmpty, "\(printed.stderr)")
            #expect(SingleSignInScenarios.launches(cli).count == 1, "one browser, the owner's")
        }
    }

    /// The `versola request` process under the terminal `pid` (its shell may run it as a child,
    /// or exec it; the front execs the engine in place).
    static func command(under pid: pid_t) -> pid_t? {
        var queue = [pid]
        while !queue.isEmpty {
            let next = queue.removeFirst()
            let arguments = (FileManager.default.contents(atPath: "/proc/\(next)/cmdline") ?? Data()).split(separator: 0)
                .map { String(decoding: $0, as: UTF8.self) }
            if next != pid, arguments.dropFirst().first == "request" { return next }
            let children = (try? String(contentsOfFile: "/proc/\(next)/task/\(next)/children", encoding: .utf8)) ?? ""
            queue += children.split(separator: " ").compactMap { pid_t($0) }
        }
        return nil
    }

    /// Runs `body` with a session for the stand-in's MCP endpoint (signed in with the counting
    /// browser, none of its launches counted yet) that holds less scope than the endpoint wants.
    static func withSignedInForLessScope(_ body: (CLIHarness, String) async throws -> Void) async throws {
        let cli = try await ResourceMCPCommandScenarios.stepUpHarness()
        try await withHarness(cli) { cli in
            let mcp = String(cli.idp.resourceURL.dropLast("/resource".count)) + "/mcp"
            let login = try await cli.run(
                ["login", "--resource", mcp, "--browser-command", try SingleSignInScenarios.countingBrowser(cli)])
            try #require(login.status == 0, "\(login.stderr)")
            unlink(cli.home.path + "/launches")
            try await body(cli, mcp)
        }
    }

    /// The authorization-code exchanges the provider saw.
    static func codeExchanges(_ cli: CLIHarness) async -> Int {
        await cli.idp.provider.requests(to: .token).filter { $0.formValue("grant_type") == "authorization_code" }.count
    }
}
