import Versola
import VersolaJOSE

/// How the agent (or a command's own host) answers a `credential` request: the target table of
/// the caller's config directory names the profile and the token; the profile's session gives
/// it (the warm index first); it is handed out only as a Bearer credential. The one place
/// these rules live for every adapter.
///
/// The answer: `{"served":false}` when no target covers the address; else, with `print`, the
/// bytes the tool's adapter prints, or `{"target":ROW,"token":RESULT}`; or an error.
enum CredentialResolution {
    /// Answered already (not served, or refused), or to be answered with the token `request`
    /// asks for `target`.
    case answered(AgentReply)
    case token(CredentialTarget, AgentRequest)

    /// Reads the table (and, unless `warm`, the profile, for a DPoP refusal before any token).
    static func resolve(
        _ arguments: AgentCredentialArguments, _ request: AgentRequest, directories: XDGDirectories, warm: Bool
    ) -> CredentialResolution {
        do throws(VersolaError) {
            let table = try TargetTable.load(configHome: directories.configHome.path)
            guard let target = table.target(for: arguments.tool, address: arguments.address) else {
                return .answered(.ok(AgentCredentialResult.notServed))
            }
            if let source = target.unusableSource {
                throw .configuration(
                    .invalidConfiguration(
                        "the target \(target.key) asks for a token source this versola does not know (\(source)); update versola"))
            }
            if !warm, try ProfileFiles(configHome: directories.configHome.path).require(target.profile).dpop == .require {
                throw target.tool.bearerTool.dpopRefused(profile: target.profile)
            }
            let call: AgentCall = target.token == .id ? .idToken(AgentTokenArguments()) : .token(AgentTokenArguments())
            return .token(target, AgentRequest(call, profile: target.profile, directories: directories))
        } catch {
            return .answered(.failure(error))
        }
    }

    /// The answer once the session answered `reply` for `target`.
    static func finish(_ reply: AgentReply, target: CredentialTarget, _ arguments: AgentCredentialArguments) -> AgentReply {
        guard case .success(let value) = reply else {
            if case .failure = reply { return reply }
            return .failure(AgentClient.lostAnswer)
        }
        guard let token = AgentTokenResult(value, kind: target.token) else { return .failure(AgentClient.lostAnswer) }
        guard token.kind == .id || token.tokenType == .bearer else {
            return .failure(target.tool.bearerTool.dpopRefused(profile: target.profile))
        }
        guard arguments.print, let text = printout(target, token, arguments) else {
            return .ok(AgentCredentialResult(target: target, token: token))
        }
        return .printed(AgentPrintout(bytes: Array(text.utf8)))
    }

    /// What the tool's adapter prints on success; nil for a tool whose adapter renders itself.
    static func printout(_ target: CredentialTarget, _ token: AgentTokenResult, _ arguments: AgentCredentialArguments) -> String? {
        switch arguments.tool {
        case .docker: DockerCredentialCommand.answer(address: arguments.address, target: target, token: token)
        case .python: CredentialCommand.answer(target: target, token: token)
        case .cargo: nil
        }
    }
}

extension SessionHost {
    /// The answer to a `credential` request (see ``CredentialResolution``).
    func credential(_ arguments: AgentCredentialArguments, _ request: AgentRequest) async -> AgentReply {
        let directories: XDGDirectories
        do throws(VersolaError) { directories = try location(of: request).directories } catch { return .failure(error) }
        switch CredentialResolution.resolve(arguments, request, directories: directories, warm: false) {
        case .answered(let reply): return reply
        case .token(let target, let inner): return CredentialResolution.finish(await handle(inner), target: target, arguments)
        }
    }

    /// The answer from a warm session without entering the host; nil when ``credential(_:_:)`` must answer.
    nonisolated func answerWarmCredential(_ arguments: AgentCredentialArguments, _ request: AgentRequest) -> AgentReply? {
        guard let directories = try? location(of: request).directories,
            case .token(let target, let inner) = CredentialResolution.resolve(arguments, request, directories: directories, warm: true),
            let reply = answerWarm(inner)
        else { return nil }
        return CredentialResolution.finish(reply, target: target, arguments)
    }
}
