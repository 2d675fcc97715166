import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// Runs a parsed command and returns its exit status. Commands that need a session go
/// through the session agent when one can be reached or started, else run in-process with
/// a ``SessionHost`` of their own.
public enum CommandRunner {
    /// Runs `context.invocation`.
    public static func run(_ context: CommandContext) async -> ExitStatus {
        if context.invocation.global.verbose { ExchangeReport.install(console: context.console, json: context.invocation.global.json) }
        do throws(CommandFailure) {
            return try await dispatch(context)
        } catch {
            context.console.err(ErrorReport.render(error, json: context.invocation.global.json, profile: context.profile))
            return error.exitStatus
        }
    }

    private static func dispatch(_ context: CommandContext) async throws(CommandFailure) -> ExitStatus {
        let global = context.invocation.global
        switch context.invocation.command {
        case .help(let name):
            context.console.out(HelpText.text(for: name) + "\n")
        case .version:
            context.console.out(HelpText.versionLine + "\n")
        case .completion(let shell):
            context.console.out(CompletionScript.text(for: shell))
        case .man:
            context.console.out(ManPage.text)
        case .profiles:
            try await ProfilesCommand(context: context).run()
        case .gitCredential(let operation):
            try await GitCredentialCommand(context: context).run(operation)
        case .setupGit(let options):
            try await SetupGitCommand(context: context).run(options)
        case .setupKubectl(let options):
            try SetupKubectlCommand(context: context).run(options)
        case .setupDocker, .dockerCredential, .setupPip, .credential, .setupCargo, .cargoCredential: return try await TargetCommands.run(context)
        case .login(let options):
            try await LoginCommand(context: context, options: options).run()
        case .token(let options):
            try await TokenCommand(context: context, options: options).run()
        case .status(let options):
            if options.watch {
                try await watch(context)
            } else {
                let status = try await call(AgentRequest(.status, profile: context.profile), context, as: AgentStatus.self)
                context.console.out(global.json ? status.json.serialized() + "\n" : StatusOutput.text(status, color: useColor(context)))
                // Like `gh auth status`: a script can test whether the profile is signed in.
                if !status.signedIn { return .signedOut }
            }
        case .userInfo:
            let info = try await call(AgentRequest(.userInfo, profile: context.profile), context, as: AgentUserInfo.self)
            context.console.out(global.json ? info.json.serialized() + "\n" : StatusOutput.claimsText(info.json))
        case .logout(let options):
            let request = AgentRequest(.logout(endSession: options.endSession), profile: context.profile)
            // An agent holding the session must drop it; none is started just to sign out.
            let result = try await call(request, context, startAgent: false, as: AgentLogoutResult.self)
            context.console.out(global.json ? result.shown.json.serialized() + "\n" : "Signed out (profile \(context.profile)).\n")
            await EndSessionPage.show(result, context: context)
        case .unlock(let options):
            try await UnlockCommand(context: context, options: options).run()
        case .request(let options):
            return try await sendRequest(options, context)
        case .handleRedirect(let url):
            try await LoginCommand.handleRedirect(url, context: context)
        case .verify(let options):
            let result = try await TokenVerifier.verify(options, context: context)
            context.console.out(global.json ? result.serialized() + "\n" : StatusOutput.verifiedText(result))
        case .agent(let options):
            // Normally run by ``VersolaCommandLine`` on the main thread; here on a thread of its
            // own, since the agent's loop blocks.
            let status = await SyncBridge.run { runAgent(options, context: context) }
            if status != .success { throw .versola(.configuration(.invalidConfiguration("the agent could not start"))) }
        }
        return .success
    }

    /// Sends `request` to the agent (starting it when needed), or runs it here.
    /// The request carries this process's XDG directories (S11). It runs here only when it
    /// could not be delivered to an agent; once delivered, it is never run a second time (R9).
    static func call<Result: AgentResultBody>(
        _ request: AgentRequest, _ context: CommandContext, startAgent: Bool = true, as type: Result.Type
    ) async throws(CommandFailure) -> Result {
        let reply = try await ask(request, context, startAgent: startAgent)
        do throws(VersolaError) { return try reply.result(type) } catch { throw .versola(error) }
    }

    /// The agent's answer to `request` (see ``call(_:_:startAgent:)``), a failure included.
    static func ask(_ request: AgentRequest, _ context: CommandContext, startAgent: Bool = true)
        async throws(CommandFailure) -> AgentReply
    {
        var request = request
        if request.directories == nil {
            // A home the engine cannot use (not UTF-8) is an error here, never the agent's own home.
            do throws(VersolaError) { request.directories = try context.directories() } catch { throw .versola(error) }
        }
        let reply: AgentReply
        if let client = context.agentClient(), let answer = client.send(request, start: startAgent) {
            reply = answer
        } else {
            // Only what needs the session's secrets asks for a passphrase; status, logout and
            // the profile list say `locked` instead (logout works locked, S9).
            let asks: Set<AgentOperation> = [.token, .idToken, .userInfo, .request]
            reply = await context.inProcessHost(askingPassphrase: asks.contains(request.operation)).handle(request)
        }
        return reply
    }

    /// Tells a running agent to forget `profile`'s session (after a login here); never starts one.
    /// (Also with `--no-agent`: a running agent must not keep serving the old session.)
    static func reloadAgent(_ context: CommandContext) {
        guard let location = AgentLocation.resolve(environment: context.environment) else { return }
        let client = AgentClient(location: location, executable: nil, environment: context.environment)
        _ = client.send(AgentRequest(.reload, profile: context.profile, directories: try? context.directories()), start: false)
    }

    /// Hands a login's access token to the agent (starting it when needed), so that `token`
    /// serves it at once, also for a provider that issues no refresh token (P4: the access
    /// token lives only in memory, so only the agent can keep it past this process).
    static func handAccessToken(_ token: AccessToken, idToken: String?, _ context: CommandContext) {
        guard let client = context.agentClient() else { return }
        let arguments = AgentAdoptArguments(
            accessToken: token.value, idToken: idToken, expiresAt: token.expiresAt.map { Int64($0.timeIntervalSince1970) })
        let request = AgentRequest(.adopt(arguments), profile: context.profile, directories: try? context.directories())
        _ = client.send(request, start: true)
    }

    /// Hands a passphrase profile's passphrase to the agent (starting it when needed), which
    /// then keeps the profile unlocked (S10) until it exits.
    static func handPassphrase(_ passphrase: Passphrase, _ context: CommandContext) {
        guard let client = context.agentClient() else { return }
        let request = AgentRequest(
            .unlock(AgentUnlockArguments(passphrase: passphrase)), profile: context.profile, directories: try? context.directories())
        _ = client.send(request, start: true)
    }

    static func useColor(_ context: CommandContext) -> Bool {
        context.invocation.global.color && context.console.outputIsTerminal
    }

    private static func watch(_ context: CommandContext) async throws(CommandFailure) {
        let json = context.invocation.global.json
        let color = useColor(context)
        var failure: VersolaError?
        let print: (AgentReply) -> Bool = { reply in
            do throws(VersolaError) {
                let status = try reply.result(AgentStatus.self)
                context.console.out(json ? status.json.serialized() + "\n" : StatusOutput.text(status, color: color))
                return true
            } catch {
                failure = error
                return false
            }
        }
        let directories: XDGDirectories
        do throws(VersolaError) { directories = try context.directories() } catch { throw .versola(error) }
        let request = AgentRequest(.watch, profile: context.profile, directories: directories)
        if let client = context.agentClient(), client.stream(request, receive: print) {
            if let failure { throw .versola(failure) }
            return
        }
        // No agent: a session of this process's own, which follows the store like the agent's (S11).
        let host = context.inProcessHost(askingPassphrase: false)
        let stream: AsyncStream<SessionState>
        do throws(VersolaError) { stream = try await host.watch(request) } catch { throw .versola(error) }
        for await state in stream {
            _ = print(.ok(await host.status(of: request, reporting: state)))
        }
    }

    private static func sendRequest(_ options: RequestOptions, _ context: CommandContext) async throws(CommandFailure)
        -> ExitStatus
    {
        try await RequestCommand(context: context, options: options).run()
    }

    /// Runs `versola agent` on the calling thread (it blocks until the agent exits), or with
    /// `--stop` asks a running one to exit.
    public static func runAgent(_ options: AgentOptions, context: CommandContext) -> ExitStatus {
        if options.stdio { return RefreshChild.answerOne(context) }
        guard let location = AgentLocation.resolve(environment: context.environment) else {
            context.console.err(
                ErrorReport.render(
                    .versola(.configuration(.invalidConfiguration("no private directory for the agent socket"))),
                    json: context.invocation.global.json))
            return .configuration
        }
        if options.stop {
            let client = AgentClient(location: location, executable: nil, environment: context.environment)
            let stopped = client.send(AgentRequest(.stop, profile: context.profile), start: false) != nil
            context.console.out(stopped ? "agent stopped\n" : "no agent running\n")
            return .success
        }
        // Before the server opens its own descriptors: drop the caller's, leave its directory,
        // no core dumps (AgentProcessHygiene).
        for problem in AgentProcessHygiene.prepare() { context.console.err("versola: agent: \(problem)\n") }
        let server: AgentServer
        do {
            server = try AgentServer(
                location: location, idleTimeout: .seconds(options.idleTimeoutSeconds),
                host: SessionHost(
                    environment: context.environment, passphrase: nil,
                    refreshChild: context.executable.map { RefreshChild(executable: $0, environment: context.environment) }))
        } catch .alreadyRunning {
            return .success
        } catch {
            context.console.err("versola: agent: \(error)\n")
            return .configuration
        }
        AgentProcessHygiene.detachStandardStreams()
        server.run()
        return .success
    }
}
