import Versola
import VersolaHTTP
import VersolaJOSE

/// `versola git-credential get|store|erase`: git's credential helper (gitcredentials(7)).
///
/// `get` answers the profile's access token for the git servers added with `setup-git`, and
/// nothing for any other server (git then asks its other helpers). Nothing but the answer is
/// written on standard output; a failure is a sentence on standard error and a non-zero exit.
struct GitCredentialCommand {
    let context: CommandContext

    /// The user name sent with the token; servers that take a token as the password ignore it.
    static let userName = "oauth2"

    func run(_ operation: GitCredentialOperation) async throws(CommandFailure) {
        let request = GitCredentialMessage.read { context.console.readLine() }
        // store: the session already holds the token; there is nothing to remember.
        guard operation != .store else { return }
        let settings: ProfileSettings?
        do throws(VersolaError) { settings = try context.profileFiles().load(context.profile) } catch {
            throw .versola(error)
        }
        guard let settings, Self.serves(settings, request) else { return }
        // A profile that requires DPoP never serves git; with `auto`, the token type decides below.
        guard settings.dpop != .require else { throw .versola(BearerOnlyTool.git.dpopRefused(profile: context.profile)) }
        switch operation {
        case .store:
            return
        case .erase:
            // The refused token is dropped: the session refreshes now, so the next get has a new one.
            _ = try? await CommandRunner.call(
                AgentRequest(.token(AgentTokenArguments(forceRefresh: true)), profile: context.profile), context,
                as: AgentTokenResult.self)
        case .get:
            let token = try await CommandRunner.call(
                AgentRequest(.token(AgentTokenArguments()), profile: context.profile), context, as: AgentTokenResult.self)
            guard token.kind == .access else { throw .versola(AgentClient.lostAnswer) }
            guard token.tokenType == .bearer else { throw .versola(BearerOnlyTool.git.dpopRefused(profile: context.profile)) }
            context.console.out(Self.answer(to: request, token: token.value, expiresAt: token.expiresAt).text)
        }
    }

    /// Whether `request` is for one of the git servers of `settings`.
    static func serves(_ settings: ProfileSettings, _ request: GitCredentialMessage) -> Bool {
        settings.gitHosts.contains { stored in
            (try? GitHost.parse(stored))?.matches(protocol: request["protocol"], host: request["host"]) == true
        }
    }

    /// The answer to `request`: the token as the password, or with git 2.46 and later (which
    /// announces `capability[]=authtype`) as a Bearer credential; its expiry when known, so
    /// git never reuses it after.
    static func answer(to request: GitCredentialMessage, token: String, expiresAt: Int64?) -> GitCredentialMessage {
        var answer = GitCredentialMessage()
        if request.values("capability[]").contains("authtype") {
            answer.attributes += [.init("capability[]", "authtype"), .init("authtype", "Bearer"), .init("credential", token)]
        } else {
            answer.attributes += [.init("username", request["username"] ?? userName), .init("password", token)]
        }
        if let expiresAt { answer.attributes.append(.init("password_expiry_utc", String(expiresAt))) }
        return answer
    }
}
