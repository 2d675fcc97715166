import Foundation
import Testing
import Versola
import VersolaTestIdP

@testable import VersolaCommand

/// A20's limit across invocations: a script (or an agent) that runs the printed step-up line and
/// tries again is told to stop after two step-ups in a row for one resource and method.
@Suite("versola request, at most two step-ups in a row", .serialized)
struct StepUpLimitScenarios {
    /// Signs in for the harness's `/mcp` with only `tools:read`; its URL and profile.
    static func signIn(_ cli: CLIHarness) async throws -> (String, String) {
        let mcp = String(cli.idp.resourceURL.dropLast("/resource".count)) + "/mcp"
        let login = try await cli.run(["login", "--resource", mcp, "--browser-command", CLIHarness.browser])
        try #require(login.status == 0, "\(login.stderr)")
        return (mcp, try #require(ResourceProfile.name(for: mcp)))
    }

    /// The step-up line `outcome` printed, run as printed; its exit status.
    static func runLine(_ cli: CLIHarness, of outcome: CLIHarness.Outcome) async throws -> Int32 {
        let line = try #require(outcome.stderr.range(of: "versola login ").map { outcome.stderr[$0.lowerBound...] })
        let words = line.split(separator: "\n")[0].split(separator: " ").dropFirst().map(String.init)
        return try await cli.run(words + ["--browser-command", CLIHarness.browser]).status
    }

    @Test("A20: an API that refuses every token gets two step-up lines in a row for a method, then an error that stops the loop; another method counts on its own")
    func limitAcrossInvocations() async throws {
        let cli = try await ResourceMCPCommandScenarios.stepUpHarness {
            $0.protectedResourceNeverSatisfied = true
        }
        try await withHarness(cli) { cli in
            let (mcp, _) = try await Self.signIn(cli)
            let first = try await cli.run(["request", mcp])
            #expect(first.status == 5, "\(first.stderr)")
            #expect(try await Self.runLine(cli, of: first) == 0)
            let second = try await cli.run(["request", mcp])
            #expect(second.status == 5, "\(second.stderr)")
            #expect(try await Self.runLine(cli, of: second) == 0)
            let sent = await cli.requestCount(.resource)
            let third = try await cli.run(["request", mcp])
            #expect(third.status == 6, "the loop stops: \(third.stderr)")
            #expect(third.stderr.contains("after 2 step-ups in a row"), "\(third.stderr)")
            #expect(!third.stderr.contains("versola login"), "no third line to run: \(third.stderr)")
            #expect(await cli.requestCount(.resource) == sent + 1, "the request itself is still sent")
            let post = try await cli.run(["request", mcp, "-X", "POST", "-d", "{}"])
            #expect(post.status == 5, "POST counts on its own: \(post.stderr)")
        }
    }

    @Test("A20: an answer in 2xx starts the count again")
    func successResets() async throws {
        let cli = try await ResourceMCPCommandScenarios.stepUpHarness()
        try await withHarness(cli) { cli in
            let (mcp, profile) = try await Self.signIn(cli)
            let narrow = ["login", "--profile", profile, "--scope", "tools:read", "--browser-command", CLIHarness.browser]
            let first = try await cli.run(["request", mcp])
            #expect(first.status == 5, "\(first.stderr)")
            #expect(try await Self.runLine(cli, of: first) == 0)
            #expect(try await cli.run(["request", mcp]).status == 0, "answered: the count starts again")
            for round in 1...2 {
                #expect(try await cli.run(narrow).status == 0)
                let refused = try await cli.run(["request", mcp])
                #expect(refused.status == 5, "step-up \(round) after the answer: \(refused.stderr)")
            }
        }
    }
}
