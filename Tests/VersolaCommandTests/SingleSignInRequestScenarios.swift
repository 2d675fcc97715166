import Foundation
import Testing
import VersolaTestIdP

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
        let cli = try await ResourceMCPCommandScenarios.harness {
            $0.protectedResourceScopes = ["tools:read"]
            $0.protectedResourceRequiredScopes = ["tools:read", "tools:write"]
        }
        try await withHarness(cli) { cli in
            let mcp = String(cli.idp.resourceURL.dropLast("/resource".count)) + "/mcp"
            let login = try await cli.run(
                ["login", "--resource", mcp, "--browser-command", try SingleSignInScenarios.countingBrowser(cli)])
            try #require(login.status == 0, "\(login.stderr)")
            unlink(cli.home.path + "/launches")
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

    /// The authorization-code exchanges the provider saw.
    static func codeExchanges(_ cli: CLIHarness) async -> Int {
        await cli.idp.provider.requests(to: .token).filter { $0.formValue("grant_type") == "authorization_code" }.count
    }
}
