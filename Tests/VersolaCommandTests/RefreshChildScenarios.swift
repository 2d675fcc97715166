import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP
import VersolaTesting

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

    @Test("S3 T6: a watcher of the agent sees a refresh in the refresh process as it saw one in the agent, once and in order")
    func watcherSeesTheChildsRefresh() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let watcher = try OneTruthProcessScenarios.watch(cli)
            #expect(await watcher.states(count: 1) == ["authenticated"])
            // Held open at the provider, so that the in-flight note is on disk long enough to see.
            await cli.idp.provider.arm(TestFaultRule(.token, .delay(milliseconds: 700)))
            #expect(try await cli.run(["token", "--force-refresh"]).status == 0)
            #expect(await watcher.states(count: 3) == ["authenticated", "refreshing", "authenticated"])
            #expect(try await cli.run(["token"]).status == 0)
            #expect(await Self.refreshCount(cli) == 1)
            let seen = watcher.states()
            _ = await watcher.stop()
            #expect(seen == ["authenticated", "refreshing", "authenticated"])
            await cli.idp.provider.clearFaults()
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

/// How the agent reads a refresh process that ends in ways the engine never would (real
/// processes: small scripts in place of the engine).
@Suite("the refresh process's endings")
struct RefreshChildEndingScenarios {
    /// The result of running `script` as the refresh process.
    static func refresh(with script: String) async throws -> Result<AgentTokenResult, VersolaError> {
        let home = try TemporaryDirectory()
        let path = home.path + "/engine"
        try CLIHarness.writeExecutable(Array(("#!/bin/sh\n" + script + "\n").utf8), to: path)
        let child = RefreshChild(executable: path, environment: ["PATH": "/usr/bin:/bin", "VERSOLA_PASSPHRASE_FD": "9"])
        let location = SessionHost.Location(
            directories: XDGDirectories(
                stateHome: URL(fileURLWithPath: home.path + "/state"), configHome: URL(fileURLWithPath: home.path + "/config")),
            profile: "work")
        return await child.refresh(location, forced: true).result
    }

    /// Whether `result` is the error of a refresh whose outcome is unknown (never retried).
    static func isLost(_ result: Result<AgentTokenResult, VersolaError>) -> Bool {
        guard case .failure(.recoverable(.network(let failure))) = result else { return false }
        return failure.kind == .failedAfterSending && failure.requestBytesWritten
    }

    @Test("R9: it is asked one typed token request on its standard input, with the caller's directories, and its typed answer is read")
    func typedRequestAndAnswer() async throws {
        let result = try await Self.refresh(
            with: """
                [ "$*" = "agent --stdio" ] || exit 9
                [ "$XDG_STATE_HOME" = "${0%/engine}/state" ] && [ "$XDG_CONFIG_HOME" = "${0%/engine}/config" ] || exit 9
                [ -z "$VERSOLA_PASSPHRASE_FD" ] || exit 9
                read -r request
                expected='{"v":1,"op":"token","profile":"work","config":"'"${0%/engine}"'/config","state":"'"${0%/engine}"'/state","args":{"forceRefresh":true}}'
                [ "$request" = "$expected" ] || exit 9
                echo '{"v":1,"ok":{"accessToken":"at-1","tokenType":"DPoP","expiresAt":1893553445}}'
                """)
        let token = try result.get()
        #expect(token.value == "at-1")
        #expect(token.tokenType == .dpop)
        #expect(token.expiresAt == 1_893_553_445)
    }

    @Test("P10: a renewed record it could not store comes back sealed beside its answer, a token or an error")
    func sealedRecordComesBack() async throws {
        let home = try TemporaryDirectory()
        let path = home.path + "/engine"
        for answer in [#"{"v":1,"ok":{"accessToken":"at-1","tokenType":"Bearer","expiresAt":null}}"#, #"{"v":1,"error":{"category":"configuration","cause":"idTokenRejected","message":"m"}}"#] {
            let line = try #require(AgentReply(line: Array(answer.utf8)))
            let handed = RefreshChild.line(line, handingOver: [0, 1, 2, 250])
            let script = "#!/bin/sh\necho '" + String(decoding: handed.dropLast(), as: UTF8.self) + "'\n"
            try CLIHarness.writeExecutable(Array(script.utf8), to: path)
            let child = RefreshChild(executable: path, environment: ["PATH": "/usr/bin:/bin"])
            let location = SessionHost.Location(
                directories: XDGDirectories(
                    stateHome: URL(fileURLWithPath: home.path + "/state"), configHome: URL(fileURLWithPath: home.path + "/config")),
                profile: "work")
            let received = await child.refresh(location, forced: true)
            #expect(received.sealedRecord == [0, 1, 2, 250])
            #expect(AgentReply(line: Array(handed.dropLast())) == line, "the reply itself is unchanged")
        }
        #expect(RefreshChild.line(.failure(.recoverable(.nonceLoop)), handingOver: nil) == AgentReply.failure(.recoverable(.nonceLoop)).line)
    }

    @Test("E13: its typed error comes back as the same VersolaError")
    func reportedError() async throws {
        let result = try await Self.refresh(
            with: """
                echo 'versola: a warning first' >&2
                echo '{"v":1,"error":{"category":"reauthenticate","cause":"grantRejected","message":"m"}}'
                """)
        #expect(throws: VersolaError.reauthenticate(.grantRejected)) { try result.get() }
    }

    @Test("R9: killed by a signal, an unreadable or foreign answer, or a failed exit is a recoverable failure, never a retry")
    func unknownOutcomes() async throws {
        #expect(Self.isLost(try await Self.refresh(with: "kill -9 $$")))
        #expect(Self.isLost(try await Self.refresh(with: "echo 'not json'")))
        #expect(Self.isLost(try await Self.refresh(with: "echo '{\"v\":1,\"ok\":{\"accessToken\":\"a\",\"expiresAt\":\"soon\"}}'")))
        #expect(Self.isLost(try await Self.refresh(with: "echo '{\"v\":2,\"ok\":{\"accessToken\":\"a\"}}'")))
        #expect(Self.isLost(try await Self.refresh(with: "echo '{\"v\":1,\"ok\":{\"accessToken\":\"a\"}}'; exit 3")))
        #expect(Self.isLost(try await Self.refresh(with: "exit 4")))
    }
}
