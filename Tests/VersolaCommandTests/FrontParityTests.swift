import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE

@testable import VersolaCommand

/// The front (`versola-front`, installed as `versola`) and the engine (`versola`) given the
/// same agent answers print the same bytes, return the same status and send the same
/// request: every error category and cause the agent can return, tokens it prints itself
/// and tokens it hands over, lost answers. Messages thus come from ErrorReport alone.
@Suite("The front binary matches the engine")
struct FrontParityTests {
    /// What kubectl sets for its credential plugins, byte for byte (Go's encoder ends it with a newline).
    static func execInfo(_ version: String, interactive: Bool) -> [String: String] {
        let value = #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/"#
            + version + #"","spec":{"interactive":"# + (interactive ? "true" : "false") + "}}\n"
        return [KubernetesExecInfo.variable: value]
    }

    static let commandLines: [(arguments: [String], environment: [String: String])] = [
        (["token"], [:]), (["token", "--json"], [:]), (["token", "--format", "k8s"], [:]),
        (["--profile", "work", "token", "--format=json"], [:]),
        (["token", "--force-refresh", "--format", "raw", "--profile=a.b-c_d"], [:]),
        (["token", "--format", "k8s", "--json"], [:]),
        // kubectl's lines: the version it asks for, the ID token, an interactive session.
        (["token", "--format", "k8s", "--profile", "work"], execInfo("v1beta1", interactive: false)),
        (["token", "--format=k8s", "--token=id"], execInfo("v1", interactive: true)),
        (["token", "--token", "id", "--format", "json"], [:]), (["--profile=work", "token", "--token", "id"], [:]),
        // Profiles named like a format or a kind are profiles, not formats.
        (["token", "--profile", "k8s"], [:]), (["--profile", "json", "token", "--token", "id"], [:]),
    ]

    /// The command lines tried with the `index`th reply: all of them, each reply with each line.
    /// Under the thread sanitizer (`scripts/tsan.sh` sets `VERSOLA_SANITIZER=thread`), where each
    /// command takes about a second to start, reply `index` meets line `index` (modulo their
    /// number) instead, so that every reply and every line still run, in both binaries, looking
    /// for races; the whole product, 12 times the work and 17 minutes there, runs in the plain
    /// suite and against the installed binaries.
    static func commandLines(for index: Int) -> [(arguments: [String], environment: [String: String])] {
        guard ProcessInfo.processInfo.environment["VERSOLA_SANITIZER"] == "thread" else { return commandLines }
        return [commandLines[index % commandLines.count]]
    }

    /// Every error the agent can send: each category, each cause, details that need quoting
    /// or escaping.
    static let errors: [VersolaError] = {
        var errors: [VersolaError] = [
            .recoverable(.userCancelled), .recoverable(.systemCancelled), .recoverable(.pendingRequestExpired),
            .recoverable(.unlockRequired), .recoverable(.nonceLoop), .recoverable(.storageUnavailable("disk full")),
            .recoverable(.network(NetworkFailure(kind: .timedOut, requestBytesWritten: true, origin: "https://idp.test"))),
            .recoverable(.network(NetworkFailure(kind: .couldNotConnect, requestBytesWritten: false, origin: "x"))),
            .recoverable(
                .server(
                    ServerFailure(
                        status: 503, retryAfter: .milliseconds(1500), failedRequests: 3, elapsed: .milliseconds(2042),
                        errorCode: "temporarily_unavailable", errorDescription: "busy\u{1B}]0;owned\u{07}"))),
            .recoverable(.server(ServerFailure(status: 500, failedRequests: 1, elapsed: .zero))),
            .stepUp(StepUpChallenge(acrValues: ["urn:mfa", "it's; rm -rf"], maxAge: 300)),
            .stepUp(StepUpChallenge(acrValues: [], maxAge: nil)),
            .configuration(.stateMismatch), .configuration(.issuerMismatch),
            .configuration(.idTokenRejected(IDTokenRejection(.audienceMismatch, "bad aud"))), .configuration(.providerUnsupported("no PKCE")),
            .configuration(.invalidConfiguration("no issuer")), .configuration(.authorizationRejected("invalid_scope")),
            .configuration(.discoveryIssuerMismatch(expected: "https://a", actual: "https://b\u{202E}")),
        ]
        errors += ReauthenticationReason.allCases.map { .reauthenticate($0) }
        return errors
    }()

    /// Success answers: printouts (the front copies them out; the agent renders every token it
    /// sends the front), and results from an agent that did not render (handed over).
    static let successes: [String] = [
        "print 6\nabc de", "print 0\n", "print 12\n{\"a\":\"\u{1B}[31m\"}\n", "print 8\ntwo\nline",
        #"{"v":1,"ok":{"accessToken":"versioned","tokenType":"Bearer","expiresAt":1893456000}}"#,
        #"{"ok":{"accessToken":"eyJ.plain-token_1","tokenType":"Bearer","expiresAt":1893456000}}"#,
        #"{"ok":{"accessToken":"opaque","tokenType":"DPoP","expiresAt":null}}"#,
        #"{"ok":{"accessToken":"no-type","expiresAt":1700000000,"extra":true}}"#,
        #"{"ok":{"accessToken":"tab\there\u001b[31m","tokenType":"Bearer","expiresAt":1893456000}}"#,
        #"{"ok":{"accessToken":"caf\u00e9\/x","tokenType":"Bearer","expiresAt":1893456000}}"#,
        #"{"ok":{"accessToken":"a\"b\\c","tokenType":"Bearer","expiresAt":99999999999999}}"#,
        #"{"ok":{"accessToken":"float","tokenType":"Bearer","expiresAt":1893456000.5}}"#,
        #"{"ok":{"accessToken":"nested","tokenType":{"a":1},"expiresAt":1893456000}}"#,
        #"{"ok":{"tokenType":"Bearer"}}"#,
        #"{"ok":{"idToken":"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln","expiresAt":1893456000}}"#,
        #"{"ok":{"idToken":"caf\u00e9","expiresAt":1893456000}}"#,
        #"{"ok":"not an object"}"#,
    ]

    /// Lost or broken answers: closed without a reply, not JSON, an unknown cause.
    static let broken: [String?] = [
        nil, "garbage", #"{"error":{"category":"recoverable","cause":"unheard-of"}}"#,
        // A printout cut short, a header that is not one, another protocol version.
        "print 100\nshort", "print -1\nx", "print 1 2\nx", "print 1234567890\nx",
        #"{"v":2,"ok":{"accessToken":"a","tokenType":"Bearer","expiresAt":null}}"#,
    ]

    @Test("R9 E13: the front prints every agent answer as the engine does, and asks once")
    func parity() async throws {
        let cli = try await CLIHarness()
        // The fake agent is not the harness's: only the provider is stopped.
        try await withHarness(cli, finish: { await $0.idp.stop() }) { cli in
            let agent = try FakeAgent(environment: cli.environment)
            defer { agent.stop() }
            let replies: [String?] = Self.successes + Self.errors.map { String(decoding: AgentReply.failure($0).line.dropLast(), as: UTF8.self) } + Self.broken
            // Each line is tried at least once however the lines are shared out (commandLines(for:)).
            #expect(replies.count >= Self.commandLines.count)
            for (index, reply) in replies.enumerated() {
                agent.reply = reply.map { Array($0.utf8) }
                for (arguments, environment) in Self.commandLines(for: index) {
                    agent.reset()
                    let front = try await run(CLIHarness.executable, arguments, cli, environment)
                    let frontRequests = agent.requests
                    agent.reset()
                    let engine = try await run(CLIHarness.engine, arguments, cli, environment)
                    let context = "reply \(reply ?? "none"), arguments \(arguments) \(environment)"
                    #expect(frontRequests.count == 1, "the front asked \(frontRequests.count) times: \(context)")
                    #expect(frontRequests == agent.requests, "request lines differ: \(context)")
                    #expect(front.status == engine.status, "exit status: \(context)")
                    #expect(Self.steady(front.stdout) == Self.steady(engine.stdout), "stdout: \(context)")
                    #expect(front.stderr == engine.stderr, "stderr: \(context)")
                }
            }
        }
    }

    @Test("The front hands unknown commands and flags to the engine unchanged")
    func fallsBack() async throws {
        let cli = try await CLIHarness()
        // The fake agent is not the harness's: only the provider is stopped.
        try await withHarness(cli, finish: { await $0.idp.stop() }) { cli in
            let variable = KubernetesExecInfo.variable
            let lines: [([String], [String: String])] = [
                (["--help"], [:]), (["token", "--nope"], [:]), (["token", "extra"], [:]), (["status"], [:]),
                (["token", "--format", "yaml"], [:]), (["token", "--token", "refresh"], [:]), (["setup-kubectl"], [:]),
                // Anything but what kubectl writes is left to the engine's parser and its messages.
                (["token", "--format", "k8s"], [variable: #"{"kind":"#]),
                (["token", "--format", "k8s"], Self.execInfo("v1alpha1", interactive: false)),
                (["token", "--format", "k8s"], [variable: #"{"apiVersion":"client.authentication.k8s.io/v1"}"#]),
                (["token", "--format", "k8s"], [variable: " "]),
            ]
            for (arguments, environment) in lines {
                let front = try await run(CLIHarness.executable, arguments, cli, environment)
                let engine = try await run(CLIHarness.engine, arguments, cli, environment)
                #expect(front.status == engine.status, "\(arguments) \(environment)")
                #expect(front.stdout == engine.stdout, "\(arguments) \(environment)")
                #expect(front.stderr == engine.stderr, "\(arguments) \(environment)")
            }
        }
    }

    /// A k8s credential without an expiry says "now + 60 s": the two runs may straddle a
    /// second, so that one timestamp is compared by shape only.
    static func steady(_ output: String) -> String {
        guard !output.contains("\"expiresAt\""), let range = output.range(of: #""expirationTimestamp":""#) else {
            return output
        }
        var text = output
        let start = range.upperBound
        if let end = text[start...].firstIndex(of: "\"") { text.replaceSubrange(start..<end, with: "NOW+60") }
        return text
    }

    private func run(
        _ executable: String, _ arguments: [String], _ cli: CLIHarness, _ environment: [String: String] = [:]
    ) async throws -> CLIHarness.Outcome {
        let stem = cli.home.path + "/parity-" + UUID().uuidString.prefix(8)
        let child = try cli.spawn(executable, arguments, extraEnvironment: environment, stem: stem)
        return await cli.finished(child, stem: stem)
    }
}
