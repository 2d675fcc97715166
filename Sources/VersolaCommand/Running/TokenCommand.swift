import Versola
import VersolaHTTP
import VersolaJOSE

/// `versola token`: asks the agent (or a session of this process) for the access or ID
/// token and prints it. For kubectl (`--format k8s`) it answers in the ExecCredential version
/// `KUBERNETES_EXEC_INFO` asks for, refuses a DPoP-bound access token (kubectl sends no
/// proofs), and when kubectl lets it interact and the profile needs a sign-in, runs the
/// browser sign-in first, its messages on standard error (standard output is kubectl's).
struct TokenCommand {
    let context: CommandContext
    let options: TokenOptions

    /// The whole command.
    func run() async throws(CommandFailure) {
        try requireResourceProfile()
        let exec = try execInfo()
        let result: JSONValue
        do throws(CommandFailure) {
            result = try await CommandRunner.call(request, context)
        } catch .versola(.reauthenticate) where exec?.interactive == true {
            result = try await signInThenAsk()
        }
        try print(result, exec: exec)
    }

    /// A19: `--resource URL` names a resource nobody signed in for yet: say the line that does.
    private func requireResourceProfile() throws(CommandFailure) {
        guard let resource = options.resource else { return }
        do throws(VersolaError) {
            if try context.profileFiles().load(context.profile) == nil {
                throw .reauthenticate(.sessionExpired)
            }
        } catch .reauthenticate {
            throw .versola(
                .configuration(
                    .invalidConfiguration(
                        "nobody signed in for \(resource) yet: run versola login --resource \(ShellWord.quoted(resource))")))
        } catch {
            throw .versola(error)
        }
    }

    /// The rest of a `versola token` the front began: `reply` is the agent's answer to the
    /// front's request, which is not sent again (R9).
    func finish(_ reply: AgentReply) async throws(CommandFailure) {
        let exec = try execInfo()
        switch reply {
        case .success(let result):
            try print(result, exec: exec)
        case .failure(.reauthenticate) where exec?.interactive == true:
            try print(try await signInThenAsk(), exec: exec)
        case .failure(let error):
            throw .versola(error)
        }
    }

    /// The agent request for the token asked for.
    var request: AgentRequest {
        AgentRequest(options.token.operation, profile: context.profile, arguments: ["forceRefresh": .bool(options.forceRefresh)])
    }

    private var format: TokenFormat { options.effectiveFormat(json: context.invocation.global.json) }

    /// What kubectl said, for `--format k8s` only.
    private func execInfo() throws(CommandFailure) -> KubernetesExecInfo? {
        guard format == .k8s else { return nil }
        do throws(VersolaError) { return try KubernetesExecInfo(environment: context.environment) } catch {
            throw .versola(error)
        }
    }

    private func print(_ result: JSONValue, exec: KubernetesExecInfo?) throws(CommandFailure) {
        if exec != nil, options.token == .access, result["tokenType"]?.string == "DPoP" {
            throw .versola(BearerOnlyTool.kubectl.dpopRefused(profile: context.profile))
        }
        context.console.out(
            TokenOutput.render(result, format: format, kind: options.token, apiVersion: exec?.apiVersion ?? .v1))
    }

    /// `versola login` for the profile with its saved settings, everything it prints on
    /// standard error; then the token, asked for anew.
    private func signInThenAsk() async throws(CommandFailure) -> JSONValue {
        var login = context
        login.console = StandardErrorOnly(context.console)
        try await LoginCommand(context: login, options: LoginOptions()).run()
        return try await CommandRunner.call(request, context)
    }
}

/// A console whose standard output goes to standard error: for what a command prints while
/// standard output belongs to a program reading an answer (kubectl reads the ExecCredential).
struct StandardErrorOnly: Console {
    let base: any Console

    init(_ base: any Console) {
        self.base = base
    }

    func out(_ text: String) { base.err(text) }
    func err(_ text: String) { base.err(text) }
    func readLine() -> String? { base.readLine() }
    var outputIsTerminal: Bool { base.errorIsTerminal }
    var errorIsTerminal: Bool { base.errorIsTerminal }
    var inputIsTerminal: Bool { base.inputIsTerminal }
}
