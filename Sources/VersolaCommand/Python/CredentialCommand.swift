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
        return finish(try await CredentialLookup(context: context).ask(.python, address: url, print: true), url: url)
    }

    /// Prints the answer for `url` (the agent's, or one the front handed over) and returns the status.
    func finish(_ reply: AgentReply, url: String) -> ExitStatus {
        do throws(VersolaError) {
            switch try CredentialLookup.read(reply) {
            case .notServed: return .signedOut
            case .printed(let printout): context.console.out(String(decoding: printout.bytes, as: UTF8.self))
            case .served(let target, let token): context.console.out(Self.answer(target: target, token: token))
            }
            return .success
        } catch {
            context.console.err(CredentialLookup(context: context).report(error, .python, address: url))
            return ExitStatus(error)
        }
    }

    /// The line printed: `{"username":…,"password":…,"expires_at":…}` and a newline.
    static func answer(target: CredentialTarget, token: AgentTokenResult) -> String {
        let answer: JSONValue = [
            "username": .string(target.username ?? ""), "password": .string(token.value),
            "expires_at": token.expiresAt.map { .integer($0) } ?? .null,
        ]
        return answer.serialized() + "\n"
    }
}
