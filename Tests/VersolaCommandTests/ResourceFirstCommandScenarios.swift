import Foundation
import Testing
import Versola
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand

/// `versola login --resource URL`, `versola request URL` and `versola token --resource URL`
/// (A19), as a person runs them, against the test provider's protected resources on an origin
/// of their own (as MCP servers are).
@Suite("versola resource-first sign-in", .serialized)
struct ResourceFirstCommandScenarios {
    static func harness() async throws -> CLIHarness {
        try await CLIHarness(
            configure: {
                $0.metadata = .oauthAuthorizationServer
                $0.requireOpenIDScope = false
                $0.advertiseDPoP = false
                $0.advertisePushedAuthorizationRequests = false
                $0.protectedResourcePaths = ["/mcp", "/tools"]
                $0.dynamicRegistration = true
                $0.requireResourceIndicator = true
            }, separateResourceServer: true)
    }

    @Test("A19: from nothing but the API's URL: the sign-in line, a login that registers once, requests and a refresh bound to it")
    func fromTheURLAlone() async throws {
        let cli = try await Self.harness()
        try await withHarness(cli) { cli in
            let base = String(cli.idp.resourceURL.dropLast("/resource".count))
            let mcp = base + "/mcp"
            let first = try await cli.run(["request", mcp + "/tools/list"])
            #expect(first.status == 6, "\(first.stderr)")
            #expect(first.stderr.contains("versola login --resource \(mcp)"), "\(first.stderr)")
            let login = try await cli.run(["login", "--resource", mcp, "--browser-command", CLIHarness.browser])
            try #require(login.status == 0, "\(login.stderr)")
            #expect(login.stderr.contains("registered itself"), "\(login.stderr)")
            let answer = try await cli.run(["request", mcp, "--json"])
            #expect(answer.status == 0, "\(answer.stderr)")
            let body = try JSONValue(parsing: Array((try JSONValue(parsing: answer.stdout)["body"]?.string ?? "").utf8))
            #expect(body["aud"]?.string == mcp, "the token is bound to the resource")
            let refreshed = try await cli.run(["token", "--resource", mcp, "--force-refresh"])
            #expect(refreshed.status == 0, "\(refreshed.stderr)")
            let tokenRequests = await cli.idp.provider.requests(to: .token)
            #expect(tokenRequests.count == 2)
            #expect(tokenRequests.allSatisfy { $0.formValue("resource") == mcp }, "the refresh keeps resource")
            let tools = try await cli.run(["login", "--resource", base + "/tools", "--browser-command", CLIHarness.browser])
            #expect(tools.status == 0, "\(tools.stderr)")
            #expect(await cli.idp.provider.requests(to: .registration).count == 1, "one registration per server")
            let toolsAnswer = try await cli.run(["request", base + "/tools", "--json"])
            let toolsBody = try JSONValue(parsing: Array((try JSONValue(parsing: toolsAnswer.stdout)["body"]?.string ?? "").utf8))
            #expect(toolsBody["aud"]?.string == base + "/tools", "each resource its own token")
            let unknown = try await cli.run(["token", "--resource", base + "/nothing"])
            #expect(unknown.status == 6)
            #expect(unknown.stderr.contains("versola login --resource"), "\(unknown.stderr)")
        }
    }

    @Test("A19 T2: twenty processes asking for the resource's token while it is being renewed cause one refresh")
    func twentyCallersOneRefresh() async throws {
        let cli = try await Self.harness()
        try await withHarness(cli) { cli in
            let mcp = String(cli.idp.resourceURL.dropLast("/resource".count)) + "/mcp"
            let login = try await cli.run(["login", "--resource", mcp, "--browser-command", CLIHarness.browser])
            try #require(login.status == 0, "\(login.stderr)")
            #expect(try await cli.run(["token", "--resource", mcp]).status == 0)
            let before = await cli.requestCount(.token)
            // The refresh is held at the provider while every caller arrives. Under the thread
            // sanitizer a process takes about a second of CPU to start, so five callers and a
            // longer hold keep the same proof inside the operation's 20 s budget (R2).
            let sanitized = ProcessInfo.processInfo.environment["VERSOLA_SANITIZER"] != nil
            await cli.idp.provider.arm(TestFaultRule(.token, .delay(milliseconds: sanitized ? 12_000 : 3000)))
            var children: [(pid_t, String)] = []
            for index in 0..<(sanitized ? 5 : 20) {
                let stem = cli.home.path + "/caller-\(index)"
                children.append((try cli.spawn(CLIHarness.executable, ["token", "--resource", mcp, "--force-refresh"], stem: stem), stem))
            }
            var tokens = Set<String>()
            for (pid, stem) in children {
                let outcome = await cli.finished(pid, stem: stem)
                #expect(outcome.status == 0, "\(outcome.stderr)")
                tokens.insert(outcome.stdout)
            }
            #expect(await cli.requestCount(.token) == before + 1, "one refresh for every caller")
            #expect(tokens.count == 1, "every caller got the one new token")
        }
    }
}
