import Versola
import VersolaHTTP
import VersolaJOSE

/// `logout --end-session`, after the local sign-out: the provider's end-session page opened
/// here with the profile's browser rules (L1, A15), since the agent has no browser; or its
/// address printed; or, when the provider offers none, a plain sentence saying so.
///
/// The address with the ID token (`id_token_hint`) comes from the session host in the logout
/// result (``AgentLogoutResult``), is never printed, and reaches the browser only through a
/// ``OneTimeRedirect``: the browser's command line holds a loopback address that works once.
/// What is printed, and `endSessionURL` in `--json`, is the address without the token.
enum EndSessionPage {
    static func show(_ result: AgentLogoutResult, context: CommandContext) async {
        switch result.endSession {
        case .notOpened(let url, let target)?:
            if let target {
                let settings = try? context.profileFiles().load(context.profile)
                let browser = SystemBrowser(command: settings?.browserCommand, environment: context.environment)
                if await OneTimeRedirect.open(target, in: browser, random: SystemRandomSource(), clock: SystemClock()) {
                    context.console.err("Opened the provider's sign-out page in the browser.\n")
                    return
                }
            }
            context.console.err("To sign out at the provider too, open:\n  \(TerminalText.visible(url))\n")
        case .opened?:
            context.console.err("Opened the provider's sign-out page in the browser.\n")
        case .unavailable(let problem)?:
            context.console.err("versola: \(TerminalText.visible(problem)).\n")
        case nil:
            break
        }
    }
}
