import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand

/// Work handed to the agent is done once (R9), and what a login got reaches the agent (P4).
@Suite("agent work end to end", .serialized)
struct AgentWorkScenarios {
    /// The running agent's process id.
    static func agentPID(_ cli: CLIHarness) -> pid_t? {
        guard let location = AgentLocation.resolve(environment: cli.environment),
            case .success(let answer)? = AgentClient(location: location, executable: nil, environment: cli.environment)
                .send(AgentRequest(.ping, profile: "default"), start: false),
            let pid = answer["pid"]?.int64
        else { return nil }
        return pid_t(pid)
    }

    /// Waits (bounded) until the provider has seen `count` requests to `endpoint`.
    static func waitFor(_ cli: CLIHarness, _ endpoint: TestEndpoint, count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while await cli.requestCount(endpoint) < count && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test("R9: a command sent the moment `agent --stop` returns is answered (by the next agent), never dropped")
    func commandRightAfterStopIsAnswered() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            for round in 0..<4 {
                #expect(try await cli.run(["token"]).status == 0)
                let stopping = try #require(Self.agentPID(cli))
                #expect(try await cli.run(["agent", "--stop"]).status == 0)
                let token = try await cli.run(["token"])
                #expect(token.status == 0, "round \(round): \(token.stderr)")
                // The stopped agent took no new caller: the token came from an agent started after it.
                let next = Self.agentPID(cli)
                #expect(next != nil && next != stopping, "round \(round): answered by \(String(describing: next))")
            }
        }
    }

    @Test("R9: a caller connected to an agent as it stops is answered, even when its request arrives after the stop")
    func connectedCallerIsAnsweredByAStoppingAgent() async throws {
        let cli = try await CLIHarness()
        try await cli.login()
        #expect(try await cli.run(["token"]).status == 0)
        let agent = try #require(Self.agentPID(cli))
        let location = try #require(AgentLocation.resolve(environment: cli.environment))
        // Connected before the stop, its request not written yet: what the idle exit meets when a
        // command connects in the same instant (the connection is accepted, its line still on its way).
        let connection = try UnixSocket.connect(to: location.socketPath)
        defer { close(connection) }
        #expect(try await cli.run(["agent", "--stop"]).status == 0)
        // An agent that waited only for requests already read would be gone within its one-second
        // poll; this one must wait for the connection it accepted.
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline && kill(agent, 0) == 0 {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(kill(agent, 0) == 0, "the stopping agent exited with a caller still connected")
        #expect(UnixSocket.write(AgentRequest(.status, profile: "default").line, to: connection))
        var pending: [UInt8] = []
        let line = UnixSocket.readLine(from: connection, pending: &pending)
        let reply = line.flatMap(AgentReply.init(line:))
        guard case .success(let answer)? = reply else {
            Issue.record("no answer from the stopping agent: \(String(describing: reply))")
            await cli.finish()
            return
        }
        #expect(answer["state"] == "authenticated")
        await cli.finish()
    }

    @Test("R9 R7: an agent stopped or killed during a slow POST never makes the command send it again", arguments: ["stop", "kill"])
    func postNotRepeated(how: String) async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            #expect(try await cli.run(["token"]).status == 0)
            let agent = try #require(Self.agentPID(cli))
            await cli.idp.provider.arm(TestFaultRule(.resource, .delay(milliseconds: 1500)))
            let stem = cli.home.path + "/post-" + UUID().uuidString.prefix(8)
            let post = try cli.spawn(CLIHarness.executable, ["request", "-X", "POST", "-d", "{}", cli.idp.resourceURL], stem: stem)
            try await Self.waitFor(cli, .resource, count: 1)
            if how == "stop" {
                #expect(try await cli.run(["agent", "--stop"]).status == 0)
            } else {
                kill(agent, SIGKILL)
            }
            let outcome = await cli.finished(post, stem: stem)
            // Stopped: the agent finished the request first. Killed: the answer is lost, which is
            // recoverable; in neither case does the command run the POST itself.
            #expect(outcome.status == (how == "stop" ? 0 : 3), "\(outcome.stderr)")
            #expect(await cli.requestCount(.resource) == 1, "the resource received the POST once")
        }
    }

    @Test("R9 R6: an agent stopped during a refresh finishes it; the session is kept and nothing is spent twice")
    func refreshFinishedOnStop() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            #expect(try await cli.run(["token"]).status == 0)
            let before = await cli.requestCount(.token)
            await cli.idp.provider.arm(TestFaultRule(.token, .delay(milliseconds: 1500)))
            let stem = cli.home.path + "/refresh-" + UUID().uuidString.prefix(8)
            let refresh = try cli.spawn(CLIHarness.executable, ["token", "--force-refresh"], stem: stem)
            try await Self.waitFor(cli, .token, count: before + 1)
            #expect(try await cli.run(["agent", "--stop"]).status == 0)
            let outcome = await cli.finished(refresh, stem: stem)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(await cli.requestCount(.token) == before + 1, "one refresh, not rerun by the command")
            // A new agent reads the session from disk and refreshes with the rotated token.
            let again = try await cli.run(["token", "--force-refresh"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(await cli.idp.provider.revokedFamilyCount == 0)
        }
    }

    @Test("R9: an agent killed during a refresh is a recoverable error; the command does not refresh again itself")
    func refreshNotRerunAfterKill() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            #expect(try await cli.run(["token"]).status == 0)
            let agent = try #require(Self.agentPID(cli))
            let before = await cli.requestCount(.token)
            await cli.idp.provider.arm(TestFaultRule(.token, .delay(milliseconds: 1500)))
            let stem = cli.home.path + "/refresh-" + UUID().uuidString.prefix(8)
            let refresh = try cli.spawn(CLIHarness.executable, ["token", "--force-refresh", "--json"], stem: stem)
            try await Self.waitFor(cli, .token, count: before + 1)
            kill(agent, SIGKILL)
            let outcome = await cli.finished(refresh, stem: stem)
            #expect(outcome.status == 3, "\(outcome.stderr)")
            #expect(try JSONValue(parsing: outcome.stderr)["error"]?["category"] == "recoverable")
            #expect(await cli.requestCount(.token) == before + 1, "the command did not spend the token a second time")
        }
    }

    @Test("P4 S8: a provider without refresh tokens: the login's access token is served by the agent until it expires")
    func noRefreshTokenProvider() async throws {
        let cli = try await CLIHarness(configure: { $0.issueRefreshTokens = false })
        try await withHarness(cli) { cli in
            let login = try await cli.login(["--scope", "openid"])
            #expect(login.stderr.contains("no refresh token"), "\(login.stderr)")
            let status = try JSONValue(parsing: try await cli.run(["status", "--json"]).stdout)
            #expect(status["state"] == "authenticated")
            let before = await cli.requestCount(.token)
            let token = try await cli.run(["token"])
            #expect(token.status == 0, "\(token.stderr)")
            #expect(token.stdout.count > 20)
            #expect(await cli.requestCount(.token) == before, "served from the login, no token request")
        }
    }

    @Test("P4 T1: the first token after a login is the login's, with no refresh")
    func firstTokenAfterLoginIsServed() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let before = await cli.requestCount(.token)
            #expect(Self.agentPID(cli) != nil, "the login handed its session to the agent")
            let token = try await cli.run(["token"])
            #expect(token.status == 0)
            #expect(await cli.requestCount(.token) == before)
        }
    }

    @Test("L4 T1: a warm token is served from memory while the profile is unchanged; a change to its file is seen at once")
    func warmTokenFollowsTheProfileFile() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let first = try await cli.run(["token"])
            #expect(first.status == 0)
            let before = await cli.requestCount(.token)
            #expect(try await cli.run(["token"]).stdout == first.stdout)
            #expect(await cli.requestCount(.token) == before, "a warm token made the session refresh")
            // A profile file others may write is refused (L4) even by the agent's warm path...
            let profile = cli.home.path + "/config/versola/profiles/default.json"
            #expect(chmod(profile, 0o666) == 0)
            let refused = try await cli.run(["token"])
            #expect(refused.status == ExitStatus.configuration.rawValue, "\(refused.stderr)")
            #expect(refused.stdout.isEmpty)
            // ...and once mended, the same session serves again without asking the provider.
            #expect(chmod(profile, 0o600) == 0)
            #expect(try await cli.run(["token"]).stdout == first.stdout)
            #expect(await cli.requestCount(.token) == before)
        }
    }
}
