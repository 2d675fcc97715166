import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand

/// The agent renews access tokens in a short-lived process of the engine (issue 30): libcurl is
/// never loaded into the agent for token work, and the refresh keeps its rules (T2, R6, P7, S7).
@Suite("the agent's refresh process")
struct RefreshChildScenarios {
    /// The running agent's process id.
    static func agentPID(_ cli: CLIHarness) throws -> pid_t {
        let location = try #require(AgentLocation.resolve(environment: cli.environment))
        let ping = AgentClient(location: location, executable: nil, environment: cli.environment)
            .send(AgentRequest(.ping, profile: "default"), start: false)
        guard case .success(let answer)? = ping, let pid = answer["pid"]?.int64 else {
            throw CocoaError(.executableNotLoadable)
        }
        return pid_t(pid)
    }

    /// Whether `pid` has libcurl mapped.
    static func mapsLibcurl(_ pid: pid_t) throws -> Bool {
        let maps = try #require(FileManager.default.contents(atPath: "/proc/\(pid)/maps"))
        return String(decoding: maps, as: UTF8.self).contains("libcurl")
    }

    /// The refresh requests the provider saw.
    static func refreshCount(_ cli: CLIHarness) async -> Int {
        await cli.idp.provider.requests(to: .token).filter { $0.formValue("grant_type") == "refresh_token" }.count
    }

    @Test("T2 T4: two forced refreshes through the agent reach the provider twice and never load libcurl in the agent")
    func refreshesRunOutsideTheAgent() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let agent = try Self.agentPID(cli)
            var printed: [String] = []
            for _ in 0..<2 {
                let refreshed = try await cli.run(["token", "--force-refresh"])
                #expect(refreshed.status == 0, "\(refreshed.stderr)")
                printed.append(refreshed.stdout)
            }
            #expect(Set(printed).count == 2, "each forced refresh printed a new token")
            #expect(await Self.refreshCount(cli) == 2)
            // The agent holds the second refresh's token: served warm, nothing more sent.
            let warm = try await cli.run(["token"])
            #expect(warm.stdout == printed.last)
            #expect(await Self.refreshCount(cli) == 2)
            let status = try JSONValue(parsing: try await cli.run(["status", "--json"]).stdout)
            #expect(status["state"] == "authenticated")
            #expect(try Self.agentPID(cli) == agent, "the same agent answered throughout")
            #expect(try !Self.mapsLibcurl(agent), "libcurl is mapped in the agent")
        }
    }

    @Test("S7 E9: a refresh refused with invalid_grant in the refresh process signs the agent's session out, exit 4")
    func refusedGrantThroughTheChild() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let agent = try Self.agentPID(cli)
            await cli.idp.provider.arm(
                TestFaultRule(.token, .respond(status: 400, body: "{\"error\":\"invalid_grant\"}"), times: nil))
            let rejected = try await cli.run(["token", "--force-refresh", "--json"])
            #expect(rejected.status == 4, "\(rejected.stderr)")
            let error = try #require(try JSONValue(parsing: rejected.stderr)["error"])
            #expect(error["category"] == "reauthenticate")
            #expect(error["cause"] == "grantRejected")
            #expect(await Self.refreshCount(cli) == 1, "the refused refresh was not sent again")
            let status = try JSONValue(parsing: try await cli.run(["status", "--json"]).stdout)
            #expect(status["state"] == "unauthenticated")
            let again = try await cli.run(["token"])
            #expect(again.status == 4)
            #expect(again.stderr.contains("sign in again: versola login"))
            #expect(await Self.refreshCount(cli) == 1)
            #expect(try Self.agentPID(cli) == agent)
            #expect(try !Self.mapsLibcurl(agent), "libcurl is mapped in the agent")
            await cli.idp.provider.clearFaults()
        }
    }
}
