import Foundation
import Testing
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand

/// The real kubectl (`kubectl get --raw /api`) against an https stand-in for kube-apiserver,
/// its credential coming from versola as `versola setup-kubectl` configured the kubeconfig
/// user: both ExecCredential versions, the access token and the ID token, kubectl's exec
/// cache, and a sign-in when kubectl runs the plugin on a terminal.
///
/// kubectl is found on PATH (scripts/test.sh installs Debian's kubernetes-client when none
/// is); without it every test here fails saying so, never passes silently.
@Suite("kubectl credential plugin, end to end", .serialized)
struct KubectlEndToEndTests {
    /// kubectl on PATH, and whether it speaks `client.authentication.k8s.io/v1` (1.22 and later).
    struct Kubectl {
        let path: String
        let speaksV1: Bool

        static func find(_ cli: CLIHarness) async throws -> Kubectl? {
            let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            guard let path = directories.map({ String($0) + "/kubectl" }).first(where: { access($0, X_OK) == 0 }) else {
                Issue.record(
                    """
                    kubectl is not installed, so kubectl was not tested: install it (scripts/test.sh installs \
                    Debian's kubernetes-client when kubectl is missing)
                    """)
                return nil
            }
            let stem = cli.home.path + "/kubectl-version"
            let version = await cli.finished(try cli.spawn(path, ["version", "--client", "-o", "json"], stem: stem), stem: stem)
            let minor = (try? JSONValue(parsing: version.stdout))?["clientVersion"]?["minor"]?.string
            let number = Int(minor?.prefix { $0.isNumber } ?? "") ?? 0
            return Kubectl(path: path, speaksV1: number >= 22)
        }
    }

    /// A kubeconfig whose cluster is the stand-in and whose user is what `setup-kubectl` printed.
    static func kubeconfig(
        _ cli: CLIHarness, standIn: KubeAPIStandIn, certificates: TestCertificates, arguments: [String]
    ) async throws -> String {
        let setup = try await cli.run(["setup-kubectl"] + arguments)
        #expect(setup.status == 0, "setup-kubectl failed: \(setup.stderr)")
        #expect(setup.stdout.hasPrefix("users:\n"))
        let profile = arguments.firstIndex(of: "--profile").map { arguments[$0 + 1] } ?? "default"
        let text = """
            apiVersion: v1
            kind: Config
            clusters:
            - name: stand-in
              cluster:
                server: \(standIn.url)
                tls-server-name: localhost
                certificate-authority: \(certificates.authority)
            contexts:
            - name: stand-in
              context:
                cluster: stand-in
                user: versola-\(profile)
            current-context: stand-in

            """ + setup.stdout
        let path = cli.home.path + "/kubeconfig-" + UUID().uuidString.prefix(8)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Runs kubectl on a thread of its own (as CLIHarness runs versola), stdin at end of file.
    static func kubectl(_ cli: CLIHarness, _ kubectl: Kubectl, _ arguments: [String]) async throws -> CLIHarness.Outcome {
        let stem = cli.home.path + "/kubectl-" + UUID().uuidString.prefix(8)
        return await cli.finished(try cli.spawn(kubectl.path, arguments, stem: stem), stem: stem)
    }

    /// The token the profile hands out now (`versola token [--token id]`).
    static func currentToken(_ cli: CLIHarness, id: Bool) async throws -> String {
        let token = try await cli.run(["token"] + (id ? ["--token", "id"] : []))
        #expect(token.status == 0, "\(token.stderr)")
        return String(token.stdout.dropLast())
    }

    /// kubectl with each kubeconfig version gets through, with the token versola holds, and a
    /// second kubectl within the token's lifetime costs no token request (the agent answers).
    func getThrough(kind: TokenKind) async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            guard let kubectl = try await Kubectl.find(cli) else { return }
            let certificates = try TestCertificates()
            let standIn = try KubeAPIStandIn(certificates: certificates, idp: cli.idp, accepting: kind)
            defer { standIn.stop() }
            try await cli.login(["--no-dpop"])
            let token = try await Self.currentToken(cli, id: kind == .id)
            for version in ExecCredentialVersion.allCases {
                if version == .v1 && !kubectl.speaksV1 {
                    Issue.record("kubectl at \(kubectl.path) is older than 1.22 and cannot use \(version.rawValue)")
                    continue
                }
                var arguments = ["--api-version", version.shortName]
                if kind == .id { arguments += ["--token", "id"] }
                let kubeconfig = try await Self.kubeconfig(cli, standIn: standIn, certificates: certificates, arguments: arguments)
                let accepted = standIn.acceptedTokens.count
                let first = try await Self.kubectl(cli, kubectl, ["--kubeconfig", kubeconfig, "get", "--raw", "/api"])
                #expect(first.status == 0, "kubectl (\(version.shortName)) failed: \(first.stderr)")
                #expect(first.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == KubeAPIStandIn.apiVersions)
                #expect(standIn.acceptedTokens.count > accepted)
                #expect(standIn.acceptedTokens.dropFirst(accepted).allSatisfy { $0 == token })

                let tokenRequests = await cli.requestCount(.token)
                let second = try await Self.kubectl(cli, kubectl, ["--kubeconfig", kubeconfig, "get", "--raw", "/api"])
                #expect(second.status == 0, "\(second.stderr)")
                #expect(await cli.requestCount(.token) == tokenRequests, "a second kubectl made the session refresh")
                #expect(standIn.acceptedTokens.last == token)
            }
            #expect(standIn.refusedCount == 0)
            // A token the provider did not issue is refused: the stand-in is not a pushover.
            let stranger = try await Self.kubectl(
                cli, kubectl,
                [
                    "--server", standIn.url, "--tls-server-name", "localhost", "--certificate-authority",
                    certificates.authority, "--token", "not-a-token", "get", "--raw", "/api",
                ])
            #expect(stranger.status != 0)
            #expect(standIn.refusedCount > 0)
        }
    }

    @Test func kubectlSendsTheAccessTokenWithV1AndV1beta1() async throws {
        try await getThrough(kind: .access)
    }

    @Test func kubectlSendsTheIDTokenWithV1AndV1beta1() async throws {
        try await getThrough(kind: .id)
    }

    @Test func signedOutWithoutATerminalKubectlFailsWithTheSignInHint() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            guard let kubectl = try await Kubectl.find(cli) else { return }
            let certificates = try TestCertificates()
            let standIn = try KubeAPIStandIn(certificates: certificates, idp: cli.idp, accepting: .access)
            defer { standIn.stop() }
            try await cli.login(["--no-dpop", "--profile", "k8s"])
            #expect(try await cli.run(["logout", "--profile", "k8s"]).status == 0)
            let kubeconfig = try await Self.kubeconfig(
                cli, standIn: standIn, certificates: certificates, arguments: ["--profile", "k8s"])
            let codes = await cli.idp.provider.requests(to: .token).count
            let outcome = try await Self.kubectl(cli, kubectl, ["--kubeconfig", kubeconfig, "get", "--raw", "/api"])
            #expect(outcome.status != 0)
            #expect(outcome.stderr.contains("versola login --profile k8s"), "\(outcome.stderr)")
            #expect(standIn.acceptedTokens.isEmpty)
            #expect(await cli.idp.provider.requests(to: .token).count == codes, "no sign-in without a terminal")
        }
    }

    // kubectl on a terminal (a pseudo-terminal through script(1)) runs the plugin interactively:
    // versola signs in through the browser (the harness's headless one), then answers.
    @Test func onATerminalKubectlGetsASignInInsteadOfExit4() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            guard let kubectl = try await Kubectl.find(cli) else { return }
            let certificates = try TestCertificates()
            let standIn = try KubeAPIStandIn(certificates: certificates, idp: cli.idp, accepting: .id)
            defer { standIn.stop() }
            try await cli.login(["--no-dpop"])
            #expect(try await cli.run(["logout"]).status == 0)
            let kubeconfig = try await Self.kubeconfig(
                cli, standIn: standIn, certificates: certificates, arguments: ["--token", "id"])
            let exchanges = await Self.codeExchanges(cli)
            let command = "\(ShellWord.quoted(kubectl.path)) --kubeconfig \(ShellWord.quoted(kubeconfig)) get --raw /api"
            let stem = cli.home.path + "/pty"
            let outcome = await cli.finished(try cli.spawn("script", ["-q", "-e", "-c", command, "/dev/null"], stem: stem), stem: stem)
            #expect(outcome.status == 0, "\(outcome.stdout)")
            #expect(outcome.stdout.contains(KubeAPIStandIn.apiVersions))
            #expect(outcome.stdout.contains("Signed in as"))
            #expect(await Self.codeExchanges(cli) == exchanges + 1)
            #expect(!standIn.acceptedTokens.isEmpty)
            #expect(Set(standIn.acceptedTokens) == [try await Self.currentToken(cli, id: true)])
        }
    }

    static func codeExchanges(_ cli: CLIHarness) async -> Int {
        await cli.idp.provider.requests(to: .token).filter { $0.formValue("grant_type") == "authorization_code" }.count
    }
}
