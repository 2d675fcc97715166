import Versola
import VersolaJOSE

/// `versola credential --url URL`: what the Python keyring backend runs for pip, uv and twine.
/// Exit 0 with `{"username":…,"password":…,"expires_at":…}`; exit 1 with nothing printed when
/// no target covers the URL (the backend then says "not mine"); a served URL whose profile
/// cannot give a token without a sign-in exits in the error's category (4, reauthenticate),
/// its reason on standard error. It never prompts.
struct CredentialCommand {
    let context: CommandContext

    func run(_ options: CredentialOptions) async throws(CommandFailure) -> ExitStatus {
        guard let url = options.url else { throw .usage(UsageError("'credential' needs --url URL", command: .credential)) }
        let lookup = CredentialLookup(context: context)
        guard let target = try lookup.target(.python, address: url) else { return .signedOut }
        let token: AgentTokenResult
        do throws(CommandFailure) { token = try await lookup.token(for: target) } catch {
            // Said for the target's profile, whose sign-in line fixes it.
            context.console.err(ErrorReport.render(error, json: context.invocation.global.json, profile: target.profile))
            return error.exitStatus
        }
        let answer: JSONValue = [
            "username": .string(target.username ?? ""), "password": .string(token.value),
            "expires_at": token.expiresAt.map { .integer($0) } ?? .null,
        ]
        context.console.out(answer.serialized() + "\n")
        return .success
    }
}
