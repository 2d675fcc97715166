import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTesting

@testable import VersolaCommand

/// The ExecCredential kubectl reads, what kubectl says in `KUBERNETES_EXEC_INFO`, and the
/// kubeconfig user `setup-kubectl` prints.
@Suite("kubectl's ExecCredential and exec info")
struct ExecCredentialTests {
    static func info(_ version: String, interactive: String = "false") -> String {
        #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/"#
            + version + #"","spec":{"interactive":"# + interactive + "}}\n"
    }

    @Test func rendersTheVersionAskedForWithTheTokensExpiry() throws {
        let result = AgentTokenResult(kind: .access, value: "t0k", expiresAt: 1_800_000_000)
        for version in ExecCredentialVersion.allCases {
            let text = TokenOutput.render(result, format: .k8s, apiVersion: version, now: 1_700_000_000)
            #expect(text.hasSuffix("}\n"))
            let value = try JSONValue(parsing: text)
            #expect(value["apiVersion"]?.string == version.rawValue)
            #expect(value["kind"] == "ExecCredential")
            #expect(value["status"]?["token"] == "t0k")
            #expect(value["status"]?["expirationTimestamp"] == "2027-01-15T08:00:00Z")
        }
        #expect(
            TokenOutput.render(result, format: .k8s, apiVersion: .v1beta1, now: 0)
                == #"{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t0k","expirationTimestamp":"2027-01-15T08:00:00Z"}}"#
                + "\n")
    }

    @Test func anUnknownExpiryIsAMinuteAhead() throws {
        let opaque = AgentTokenResult(kind: .access, value: "opaque", expiresAt: nil)
        let value = try JSONValue(parsing: TokenOutput.render(opaque, format: .k8s, now: 1_800_000_000))
        #expect(value["status"]?["expirationTimestamp"] == "2027-01-15T08:01:00Z")
        // --format json says it is unknown rather than inventing one.
        #expect(try JSONValue(parsing: TokenOutput.render(opaque, format: .json))["expiresAt"] == .null)
    }

    @Test func theIDTokenAnswerIsRenderedFromItsOwnMember() throws {
        let result = AgentTokenResult(kind: .id, value: "eyJ.id.sig", expiresAt: 1_800_000_600)
        let k8s = try JSONValue(parsing: TokenOutput.render(result, format: .k8s, apiVersion: .v1))
        #expect(k8s["status"]?["token"] == "eyJ.id.sig")
        #expect(k8s["status"]?["expirationTimestamp"] == "2027-01-15T08:10:00Z")
        #expect(TokenOutput.render(result, format: .raw) == "eyJ.id.sig\n")
        #expect(
            TokenOutput.render(result, format: .json)
                == #"{"idToken":"eyJ.id.sig","expiresAt":"2027-01-15T08:10:00Z"}"# + "\n")
        // The access-token member is not mistaken for it: no ID token, no result.
        #expect(AgentTokenResult(["accessToken": "a"], kind: .id) == nil)
        #expect(AgentTokenResult(["idToken": "i", "expiresAt": 7], kind: .id)?.expiresAt == 7)
    }

    @Test func timestampsAreRFC3339InUTCWithEveryDigit() {
        #expect(AccessTokenExpiry.rfc3339(0) == "1970-01-01T00:00:00Z")
        #expect(AccessTokenExpiry.rfc3339(1_800_000_000) == "2027-01-15T08:00:00Z")
        #expect(AccessTokenExpiry.rfc3339(951_782_405) == "2000-02-29T00:00:05Z")
        #expect(AccessTokenExpiry.rfc3339(253_402_300_799) == "9999-12-31T23:59:59Z")
    }

    @Test func theTokenTypeIsReadAndWrittenInOnePlace() throws {
        let dpop = AgentTokenResult(kind: .access, value: "t", tokenType: .dpop, expiresAt: nil)
        #expect(dpop.json == ["accessToken": "t", "tokenType": "DPoP", "expiresAt": .null])
        #expect(AgentTokenResult(dpop.json, kind: .access) == dpop)
        // No type is Bearer; a type nobody defined is no answer, never a guess.
        #expect(AgentTokenResult(["accessToken": "t"], kind: .access)?.tokenType == .bearer)
        #expect(AgentTokenResult(["accessToken": "t", "tokenType": "MAC"], kind: .access) == nil)
        // kubectl is never given a DPoP-bound token: the agent refuses to print one.
        guard case .failure(let error) = AgentTokenPrint(format: .k8s).reply(for: dpop, profile: "p") else {
            Issue.record("a DPoP-bound token was printed for kubectl")
            return
        }
        #expect(error == BearerOnlyTool.kubectl.dpopRefused(profile: "p"))
    }

    @Test func execInfoNamesTheVersionAndWhetherKubectlIsInteractive() throws {
        #expect(try KubernetesExecInfo(environment: [:]) == KubernetesExecInfo(apiVersion: .v1, interactive: false))
        #expect(try KubernetesExecInfo(environment: ["KUBERNETES_EXEC_INFO": ""]) == KubernetesExecInfo())
        #expect(
            try KubernetesExecInfo(json: Self.info("v1beta1", interactive: "true"))
                == KubernetesExecInfo(apiVersion: .v1beta1, interactive: true))
        #expect(try KubernetesExecInfo(json: Self.info("v1")) == KubernetesExecInfo(apiVersion: .v1, interactive: false))
        // With provideClusterInfo kubectl adds spec.cluster; without spec nothing is interactive.
        let withCluster = #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","#
            + #""spec":{"cluster":{"server":"https://k8s.example"},"interactive":true}}"#
        #expect(try KubernetesExecInfo(json: withCluster).interactive)
        #expect(try !KubernetesExecInfo(json: #"{"apiVersion":"client.authentication.k8s.io/v1"}"#).interactive)
    }

    @Test func malformedExecInfoIsAConfigurationErrorNeverACrash() {
        let cases = [
            #"{"kind":"#, "not json", "[]", "42", #"{"kind":"ExecCredential"}"#, #"{"apiVersion":7}"#,
            #"{"apiVersion":"client.authentication.k8s.io/v1","spec":[]}"#,
            #"{"apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":"yes"}}"#,
            String(repeating: "[", count: 10_000), "\u{FEFF}{}", #"{"apiVersion":"\u001b]0;owned\u0007"}"#,
        ]
        for text in cases {
            let thrown = #expect("\(text.prefix(40))") {
                try KubernetesExecInfo(environment: ["KUBERNETES_EXEC_INFO": text])
            } throws: {
                VersolaError.isInvalidConfiguration($0)
            }
            let error = thrown as? VersolaError
            let sentence = ErrorReport.render(.versola(error ?? .recoverable(.nonceLoop)), json: false)
            #expect(sentence.contains("KUBERNETES_EXEC_INFO") || sentence.contains("kubectl asked for"), "\(sentence)")
            #expect(!sentence.contains("invalidConfiguration") && !sentence.contains("unexpectedCharacter"))
            #expect(!sentence.contains("\u{1B}"))
        }
    }

    @Test func anUnknownVersionNamesTheSupportedOnes() {
        let thrown = #expect {
            try KubernetesExecInfo(json: Self.info("v1alpha1"))
        } throws: {
            VersolaError.isInvalidConfiguration($0, saying: "kubectl asked for an ExecCredential in client.authentication.k8s.io/v1alpha1")
        }
        let error = thrown as? VersolaError
        let sentence = ErrorReport.render(.versola(error ?? .recoverable(.nonceLoop)), json: false)
        #expect(sentence.contains("client.authentication.k8s.io/v1alpha1"))
        #expect(sentence.contains("client.authentication.k8s.io/v1 and client.authentication.k8s.io/v1beta1"))
        #expect(sentence.contains("--api-version"))
        #expect(error.map(ExitStatus.init) == .configuration)
    }

    @Test func versionsHaveShortNames() {
        #expect(ExecCredentialVersion(named: "v1") == .v1)
        #expect(ExecCredentialVersion(named: "v1beta1") == .v1beta1)
        #expect(ExecCredentialVersion(named: "client.authentication.k8s.io/v1beta1") == .v1beta1)
        #expect(ExecCredentialVersion(named: "v1alpha1") == nil)
        #expect(ExecCredentialVersion.allCases.map(\.shortName) == ["v1", "v1beta1"])
    }

    @Test func theKubeconfigUserQuotesWhatYAMLCouldMisread() {
        let arguments = SetupKubectlCommand.arguments(profile: "team: a#1", token: .id)
        #expect(arguments == ["token", "--format", "k8s", "--profile", "team: a#1", "--token", "id"])
        #expect(SetupKubectlCommand.arguments(profile: "work", token: .access).contains("--token") == false)
        let yaml = SetupKubectlCommand.yaml(
            user: "versola-team: a#1", command: "/opt/my tools/versola", arguments: arguments, apiVersion: .v1beta1)
        #expect(
            yaml == """
                users:
                - name: "versola-team: a#1"
                  user:
                    exec:
                      apiVersion: client.authentication.k8s.io/v1beta1
                      command: "/opt/my tools/versola"
                      args:
                      - "token"
                      - "--format"
                      - "k8s"
                      - "--profile"
                      - "team: a#1"
                      - "--token"
                      - "id"
                      interactiveMode: IfAvailable
                      provideClusterInfo: false

                """)
    }

    @Test func theCommandForKubectlIsTheFrontBesideTheEngine() throws {
        let root = try TemporaryDirectory()
        func executable(_ path: String) throws {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let script = Data("#!/bin/sh\n".utf8)
            _ = FileManager.default.createFile(atPath: path, contents: script, attributes: [.posixPermissions: 0o755])
        }
        // Installed: PREFIX/bin/versola for PREFIX/libexec/versola/versola.
        try executable(root.path + "/prefix/libexec/versola/versola")
        #expect(VersolaCommandLine.userCommand(executable: root.path + "/prefix/libexec/versola/versola") != nil)
        #expect(
            VersolaCommandLine.userCommand(executable: root.path + "/prefix/libexec/versola/versola")
                == root.path + "/prefix/libexec/versola/versola")
        try executable(root.path + "/prefix/bin/versola")
        #expect(
            VersolaCommandLine.userCommand(executable: root.path + "/prefix/libexec/versola/versola")
                == root.path + "/prefix/bin/versola")
        // A build directory: versola-front beside versola.
        try executable(root.path + "/build/versola")
        #expect(VersolaCommandLine.userCommand(executable: root.path + "/build/versola") == root.path + "/build/versola")
        try executable(root.path + "/build/versola-front")
        #expect(VersolaCommandLine.userCommand(executable: root.path + "/build/versola") == root.path + "/build/versola-front")
        #expect(VersolaCommandLine.userCommand(executable: nil) == nil)
    }
}
