import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE

@testable import VersolaCommand

/// The adapters the front answers (docker's `get` through its link, `credential --url`) print
/// what the engine prints for the same agent answer, exit alike, and send the agent one and
/// the same request (R9): printouts, "not mine", results, errors, lost answers.
@Suite("The front answers the adapters as the engine does")
struct AdapterFrontParityTests {
    static let replies: [String?] = [
        "print 12\n{\"a\":\"b\"}\nxy",
        #"{"v":1,"ok":{"served":false}}"#,
        #"{"v":1,"ok":{"target":{"tool":"docker","match":"registry.example.com","profile":"work","token":"access","source":"session","username":"oauth2"},"token":{"accessToken":"t","tokenType":"Bearer","expiresAt":1893456000}}}"#,
        #"{"v":1,"ok":{"target":{"tool":"python","match":"https://p.example.com/simple","profile":"work","token":"access","source":"session","username":"me"},"token":{"accessToken":"t","tokenType":"Bearer","expiresAt":null}}}"#,
        #"{"v":1,"ok":{"target":"broken"}}"#,
        nil, "garbage",
    ] + [
        VersolaError.reauthenticate(.sessionExpired), .recoverable(.unlockRequired),
        .configuration(.invalidConfiguration("refused")),
        .recoverable(.network(NetworkFailure(kind: .couldNotConnect, requestBytesWritten: false, origin: "https://idp.test"))),
    ].map { String(decoding: AgentReply.failure($0).line.dropLast(), as: UTF8.self) }

    @Test("R9: docker's get and credential --url, front and engine alike, asked once")
    func parity() async throws {
        let cli = try await CLIHarness()
        // The fake agent is not the harness's: only the provider is stopped.
        try await withHarness(cli, finish: { await $0.idp.stop() }) { cli in
            let agent = try FakeAgent(environment: cli.environment)
            defer { agent.stop() }
            let helper = try AdapterCommandScenarios.dockerHelper(cli)
            let input = cli.home.path + "/address"
            _ = FileManager.default.createFile(atPath: input, contents: Data("registry.example.com\n".utf8))
            let lines: [(front: (String, [String]), engine: [String], input: String)] = [
                ((helper, ["get"]), ["docker-credential", "get"], input),
                ((CLIHarness.executable, ["credential", "--url", "https://p.example.com/simple/x/"]),
                 ["credential", "--url", "https://p.example.com/simple/x/"], "/dev/null"),
            ]
            for reply in Self.replies {
                agent.reply = reply.map { Array($0.utf8) }
                for line in lines {
                    agent.reset()
                    let front = try await run(line.front.0, line.front.1, cli, input: line.input)
                    let frontRequests = agent.requests
                    agent.reset()
                    let engine = try await run(CLIHarness.engine, line.engine, cli, input: line.input)
                    let context = "reply \(reply ?? "none"), \(line.engine)"
                    #expect(frontRequests.count == 1, "the front asked \(frontRequests.count) times: \(context)")
                    #expect(frontRequests == agent.requests, "request lines differ: \(context)")
                    #expect(front.status == engine.status, "exit status: \(context)")
                    #expect(front.stdout == engine.stdout, "stdout: \(context)")
                    #expect(front.stderr == engine.stderr, "stderr: \(context)")
                }
            }
        }
    }

    private func run(_ executable: String, _ arguments: [String], _ cli: CLIHarness, input: String) async throws
        -> CLIHarness.Outcome
    {
        let stem = cli.home.path + "/parity-" + UUID().uuidString.prefix(8)
        let child = try cli.spawn(executable, arguments, stem: stem, input: input)
        return await cli.finished(child, stem: stem)
    }
}
