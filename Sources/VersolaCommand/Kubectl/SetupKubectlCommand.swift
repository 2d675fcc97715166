import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// `versola setup-kubectl`: prints the kubeconfig `users:` entry whose exec plugin is this
/// versola (like `kubectl oidc-login setup` prints one), for the person to paste; nothing is
/// written. The command is the absolute path people run as `versola` (the front when there
/// is one, see ``VersolaCommandLine/userCommand()``), so kubectl finds it whatever its PATH.
struct SetupKubectlCommand {
    let context: CommandContext

    func run(_ options: SetupKubectlOptions) throws(CommandFailure) {
        // As for git: a profile that requires DPoP never serves kubectl its access token.
        if options.token == .access, (try? context.profileFiles().load(context.profile))?.dpop == .require {
            throw .versola(BearerOnlyTool.kubectl.dpopRefused(profile: context.profile))
        }
        let command = VersolaCommandLine.userCommand() ?? "versola"
        let user = Self.userName(profile: context.profile)
        let arguments = Self.arguments(profile: context.profile, token: options.token)
        if context.invocation.global.json {
            let exec: JSONValue = [
                "apiVersion": .string(options.apiVersion.rawValue), "command": .string(command),
                "args": .array(arguments.map { .string($0) }), "interactiveMode": "IfAvailable", "provideClusterInfo": false,
            ]
            let entry: JSONValue = ["users": [["name": .string(user), "user": ["exec": exec]]]]
            context.console.out(entry.serialized() + "\n")
            return
        }
        context.console.out(Self.yaml(user: user, command: command, arguments: arguments, apiVersion: options.apiVersion))
        context.console.err(
            "Add this user to your kubeconfig's users: and use it in a context: "
                + "kubectl config set-context --current --user=\(ShellWord.quoted(user))\n")
    }

    /// `versola-PROFILE`.
    static func userName(profile: String) -> String { "versola-" + profile }

    /// What kubectl runs: `token --format k8s --profile P`, and `--token id` for the ID token.
    static func arguments(profile: String, token: TokenKind) -> [String] {
        ["token", "--format", "k8s", "--profile", profile] + (token == .id ? ["--token", "id"] : [])
    }

    /// The entry in YAML; every value that could need quoting is written as a JSON string,
    /// which YAML reads as the same double-quoted scalar.
    static func yaml(user: String, command: String, arguments: [String], apiVersion: ExecCredentialVersion) -> String {
        func quoted(_ text: String) -> String { JSONValue.string(text).serialized() }
        var lines = [
            "users:", "- name: \(quoted(user))", "  user:", "    exec:", "      apiVersion: \(apiVersion.rawValue)",
            "      command: \(quoted(command))", "      args:",
        ]
        lines += arguments.map { "      - \(quoted($0))" }
        lines += ["      interactiveMode: IfAvailable", "      provideClusterInfo: false"]
        return lines.joined(separator: "\n") + "\n"
    }
}
