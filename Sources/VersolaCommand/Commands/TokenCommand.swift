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

    /// The whole command: the agent (or a session of this process) renders what is printed.
    func run() async throws(CommandFailure) {
        try requireResourceProfile()
        let exec = try execInfo()
        let reply = try await CommandRunner.ask(request(exec), context)
        try await finish(reply, exec: exec)
    }

    /// A19: `--resource URL` names a resource nobody signed in for yet: say the line that does.
    private func requireResourceProfile() throws(CommandFailure) {
        guard let resource = options.resource else { return }
        do throws(VersolaError) {
            // Only a profile whose saved resource covers this one serves it (A19).
            guard let saved = try context.profileFiles().load(context.profile),
                context.invocation.global.profileGiven || ResourceProfile.serves(saved.resource, url: resource)
            else { throw .reauthenticate(.sessionExpired) }
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
        try await finish(reply, exec: try execInfo())
    }

    /// Prints `reply`; a sign-in kubectl allows comes first when the profile needs one (once).
    private func finish(_ reply: AgentReply, exec: KubernetesExecInfo?, signIn: Bool = true) async throws(CommandFailure) {
        switch reply {
        case .printed(let printout):
            context.console.out(String(decoding: printout.bytes, as: UTF8.self))
        case .success(let result):
            // An agent that answered with the result rather than the printout: rendered here alike.
            guard let token = AgentTokenResult(result, kind: options.token) else { throw .versola(AgentClient.lostAnswer) }
            switch print(exec).reply(for: token, profile: context.profile) {
            case .failure(let error): throw .versola(error)
            case let printed: try await finish(printed, exec: exec, signIn: false)
            }
        case .failure(.reauthenticate) where signIn && exec?.interactive == true:
            try await finish(try await signedIn(exec), exec: exec, signIn: false)
        case .failure(let error):
            // S15: a caller that cannot sign in waits for another process's sign-in for the
            // profile, whose session then answers.
            guard case .reauthenticate = error, signIn, try await SignInGate.anotherSignInEnded(context, since: nil) else {
                throw .versola(error)
            }
            try await finish(try await CommandRunner.ask(request(exec), context), exec: exec, signIn: false)
        }
    }

    /// S15: the answer once the profile's one sign-in has run: the one another caller ran (this
    /// one waited for it), else its own, through the browser as `versola login` would.
    private func signedIn(_ exec: KubernetesExecInfo?) async throws(CommandFailure) -> AgentReply {
        var login = context
        login.console = StandardErrorOnly(context.console)
        let context = context, request = request(exec)
        let waited = try await SignInGate.signInOnce(context, recheck: .afterWaitingOrWithRecord) { () async throws(CommandFailure) -> AgentReply? in
            let again = try await CommandRunner.ask(request, context)
            if case .failure(.reauthenticate) = again { return nil }
            return again
        } signIn: { () async throws(CommandFailure) in
            try await LoginCommand(context: login, options: LoginOptions(), holdsSignInLock: true).run()
        }
        if let waited { return waited }
        return try await CommandRunner.ask(request, context)
    }

    /// The agent request for the token asked for, printed as the command line says.
    private func request(_ exec: KubernetesExecInfo?) -> AgentRequest {
        let arguments = AgentTokenArguments(forceRefresh: options.forceRefresh, print: print(exec))
        return AgentRequest(options.token == .id ? .idToken(arguments) : .token(arguments), profile: context.profile)
    }

    /// How the answer is printed.
    private func print(_ exec: KubernetesExecInfo?) -> AgentTokenPrint {
        AgentTokenPrint(format: options.effectiveFormat(json: context.invocation.global.json), apiVersion: exec?.apiVersion ?? .v1)
    }

    /// What kubectl said, for `--format k8s` only.
    private func execInfo() throws(CommandFailure) -> KubernetesExecInfo? {
        guard options.effectiveFormat(json: context.invocation.global.json) == .k8s else { return nil }
        do throws(VersolaError) { return try KubernetesExecInfo(environment: context.environment) } catch {
            throw .versola(error)
        }
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
