import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand

/// `versola token --format k8s` as kubectl runs it, without kubectl: what kubectl would read on
/// standard output (and nothing else there), the ID token, the DPoP refusal, the real expiry,
/// and the front answering kubectl's warm lines itself.
@Suite("versola token for kubectl")
struct KubectlCredentialTests {
    static func execInfo(_ version: ExecCredentialVersion, interactive: Bool) -> [String: String] {
        let value = #"{"kind":"ExecCredential","apiVersion":""# + version.rawValue + #"","spec":{"interactive":"#
            + (interactive ? "true" : "false") + "}}\n"
        return [KubernetesExecInfo.variable: value]
    }

    /// The claims of a JWT, unverified.
    static func claims(_ token: String) throws -> JSONValue {
        let parts = token.split(separator: ".")
        try #require(parts.count == 3)
        return try JSONValue(parsing: try Base64URL.decode(parts[1]))
    }

    @Test(arguments: [false, true])
    func aSignedOutProfileSignsInWhenKubectlIsInteractive(noAgent: Bool) async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login(["--no-dpop"])
            #expect(try await cli.run(["logout"]).status == 0)
            let flags = noAgent ? ["--no-agent"] : []
            // Not interactive: exit 4 and the advice, nothing on standard output.
            let refused = try await cli.run(
                ["token", "--format", "k8s"] + flags, extraEnvironment: Self.execInfo(.v1beta1, interactive: false))
            #expect(refused.status == ExitStatus.reauthenticate.rawValue)
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr.contains("versola login"))

            // Interactive: the sign-in runs (the saved browser command), its words on standard
            // error; standard output holds the ExecCredential alone.
            let signedIn = try await cli.run(
                ["token", "--format", "k8s"] + flags, extraEnvironment: Self.execInfo(.v1beta1, interactive: true))
            #expect(signedIn.status == 0, "\(signedIn.stderr)")
            let credential = try JSONValue(parsing: signedIn.stdout)
            #expect(signedIn.stdout.filter { $0 == "\n" }.count == 1)
            #expect(credential["apiVersion"]?.string == ExecCredentialVersion.v1beta1.rawValue)
            #expect(signedIn.stderr.contains("Signed in as Alice Example"))
            let token = try #require(credential["status"]?["token"]?.string)
            #expect(try await cli.run(["token"] + flags).status == 0)
            if !noAgent {
                // The agent got the new session's token: the same one, without another request.
                #expect(try await cli.run(["token"]).stdout == token + "\n")
            }
        }
    }

    @Test func theIDTokenWithItsOwnExpiry() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login(["--no-dpop"])
            let json = try await cli.run(["token", "--token", "id", "--format", "json"])
            #expect(json.status == 0, "\(json.stderr)")
            let value = try JSONValue(parsing: json.stdout)
            let idToken = try #require(value["idToken"]?.string)
            let claims = try Self.claims(idToken)
            #expect(claims["aud"] == "versola-test" || claims["aud"]?[0] == "versola-test")
            let exp = try #require(claims["exp"]?.int64)
            #expect(value["expiresAt"]?.string == AccessTokenExpiry.rfc3339(exp))
            let requests = await cli.requestCount(.token)
            let k8s = try JSONValue(parsing: try await cli.run(["token", "--format", "k8s", "--token", "id"]).stdout)
            #expect(k8s["status"]?["token"]?.string == idToken)
            #expect(k8s["status"]?["expirationTimestamp"]?.string == AccessTokenExpiry.rfc3339(exp))
            #expect(await cli.requestCount(.token) == requests, "a fresh ID token is served without a refresh")
            #expect(try await cli.run(["token", "--token", "id", "--no-agent"]).stdout == idToken + "\n")
        }
    }

    @Test func anIDTokenNearItsExpiryIsRenewedByARefresh() async throws {
        // Issued for 100 s, less than the 2 minutes' margin: every ask refreshes.
        let cli = try await CLIHarness(configure: { $0.idTokenLifetime = 100 })
        try await withHarness(cli) { cli in
            try await cli.login(["--no-dpop"])
            let first = try await cli.run(["token", "--token", "id"])
            let requests = await cli.requestCount(.token)
            let second = try await cli.run(["token", "--token", "id"])
            #expect(second.status == 0)
            #expect(second.stdout != first.stdout)
            #expect(await cli.requestCount(.token) == requests + 1)
        }
    }

    @Test func aProviderWithoutNewIDTokensOnRefreshSaysSo() async throws {
        // The ID token of the login is already past its exp (within the 60 s clock tolerance
        // it was accepted at), and refreshes bring none.
        let cli = try await CLIHarness(configure: {
            $0.idTokenLifetime = -30
            $0.issueIDTokenOnRefresh = false
        })
        try await withHarness(cli) { cli in
            try await cli.login(["--no-dpop"])
            let outcome = try await cli.run(["token", "--token", "id", "--format", "k8s"])
            #expect(outcome.status == ExitStatus.configuration.rawValue)
            #expect(outcome.stdout.isEmpty)
            #expect(outcome.stderr.contains("no new ID token"), "\(outcome.stderr)")
            // The access token still serves.
            #expect(try await cli.run(["token", "--format", "k8s"]).status == 0)
        }
    }

    @Test func aDPoPBoundAccessTokenIsRefusedForKubectl() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login(["--dpop", "--profile", "bound"])
            for flags in [[], ["--no-agent"]] {
                let outcome = try await cli.run(["token", "--format", "k8s", "--profile", "bound"] + flags)
                #expect(outcome.status == ExitStatus.configuration.rawValue)
                #expect(outcome.stdout.isEmpty)
                #expect(outcome.stderr.contains("kubectl sends no DPoP proofs"), "\(outcome.stderr)")
                #expect(outcome.stderr.contains("versola login --profile bound --no-dpop"))
                #expect(!outcome.stderr.contains("invalidConfiguration"))
            }
            // The ID token is not bound: it serves kubectl; other formats still print the access token.
            #expect(try await cli.run(["token", "--format", "k8s", "--token", "id", "--profile", "bound"]).status == 0)
            let json = try JSONValue(parsing: try await cli.run(["token", "--format", "json", "--profile", "bound"]).stdout)
            #expect(json["tokenType"] == "DPoP")
            // setup-kubectl says so before kubectl ever runs, as setup-git does.
            let setup = try await cli.run(["setup-kubectl", "--profile", "bound"])
            #expect(setup.status == ExitStatus.configuration.rawValue)
            #expect(setup.stdout.isEmpty)
            #expect(setup.stderr.contains("--no-dpop"))
            #expect(try await cli.run(["setup-kubectl", "--profile", "bound", "--token", "id"]).status == 0)
        }
    }

    @Test func theExpiryIsTheProvidersForAnOpaqueToken() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login(["--no-dpop"])
            let lifetime = Int64(TestProviderConfiguration().accessTokenLifetime)
            for flags in [[], ["--force-refresh"], ["--no-agent"]] {
                let before = Int64(time(nil))
                let json = try JSONValue(parsing: try await cli.run(["token", "--format", "json"] + flags).stdout)
                let after = Int64(time(nil))
                let token = try #require(json["accessToken"]?.string)
                #expect(!token.contains("."), "opaque")
                let expiresAt = try #require(json["expiresAt"]?.string, "expiresAt is null with \(flags)")
                // Minted between `before` and `after` (the login's token may be up to a few seconds older).
                let window = (before - 30 + lifetime)...(after + lifetime)
                #expect(window.map(AccessTokenExpiry.rfc3339).contains(expiresAt), "\(expiresAt) with \(flags)")
            }
            // kubectl is told the same expiry.
            let json = try JSONValue(parsing: try await cli.run(["token", "--format", "json"]).stdout)
            let k8s = try JSONValue(parsing: try await cli.run(["token", "--format", "k8s"]).stdout)
            #expect(k8s["status"]?["expirationTimestamp"] == json["expiresAt"])
        }
    }

    /// The front alone, with no engine beside it: whatever it cannot print itself fails with
    /// "the engine is not installed", so a success proves it answered by itself.
    @Test func theFrontAnswersKubectlsWarmLinesItself() async throws {
        let cli = try await CLIHarness()
        // No agent of the harness runs here (a fake one answers): only the provider needs stopping.
        try await withHarness(cli, finish: { await $0.idp.stop() }) { cli in
            let lonely = cli.home.path + "/lonely"
            try FileManager.default.createDirectory(atPath: lonely, withIntermediateDirectories: true)
            let front = try #require(FileManager.default.contents(atPath: CLIHarness.executable))
            try CLIHarness.writeExecutable(Array(front), to: lonely + "/versola")
            let agent = try FakeAgent(environment: cli.environment)
            defer { agent.stop() }
            func run(_ arguments: [String], _ environment: [String: String] = [:]) async throws -> CLIHarness.Outcome {
                let stem = cli.home.path + "/lonely-" + UUID().uuidString.prefix(8)
                return await cli.finished(
                    try cli.spawn(lonely + "/versola", arguments, extraEnvironment: environment, stem: stem), stem: stem)
            }
            // The agent renders; the front copies its printout and asks for the format kubectl wants.
            let idToken = AgentTokenResult(kind: .id, value: "eyJ.a.b", expiresAt: 1_800_000_000)
            let credential = TokenOutput.render(idToken, format: .k8s, apiVersion: .v1beta1)
            agent.reply = Array(AgentReply.printed(AgentPrintout(bytes: Array(credential.utf8))).line.dropLast())
            let id = try await run(["token", "--format", "k8s", "--token", "id"], Self.execInfo(.v1beta1, interactive: true))
            #expect(id.status == 0, "\(id.stderr)")
            #expect(
                id.stdout == #"{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":"#
                    + #"{"token":"eyJ.a.b","expirationTimestamp":"2027-01-15T08:00:00Z"}}"# + "\n")
            #expect(agent.requests.last?.contains(#""op":"id-token""#) == true)
            #expect(
                agent.requests.last?.contains(#""print":{"format":"k8s","apiVersion":"client.authentication.k8s.io/v1beta1"}"#)
                    == true)
            _ = try await run(["token", "--token=id", "--format", "json", "--profile", "k8s"])
            #expect(agent.requests.last?.contains(#""profile":"k8s""#) == true)
            #expect(agent.requests.last?.contains(#""print":{"format":"json"}"#) == true)
            _ = try await run(["token", "--format", "k8s"], Self.execInfo(.v1, interactive: false))
            #expect(agent.requests.last?.contains(#""apiVersion":"client.authentication.k8s.io/v1"}"#) == true)

            // Any answer but a printout (a result, an error) is left to the engine: the front reads no JSON.
            agent.reply = Array(#"{"ok":{"accessToken":"t0k","tokenType":"Bearer","expiresAt":1800000000}}"#.utf8)
            #expect(try await run(["token"]).stderr.contains("engine is not installed"))
            agent.reply = Array(AgentReply.failure(.reauthenticate(.sessionExpired)).line.dropLast())
            #expect(try await run(["token", "--format", "k8s"]).stderr.contains("engine is not installed"))
            #expect(
                try await run(["token", "--format", "k8s"], [KubernetesExecInfo.variable: "{}"]).stderr.contains(
                    "engine is not installed"))
        }
    }
}
