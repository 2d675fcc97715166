import Versola
import VersolaHTTP
import VersolaJOSE

/// `logout --end-session`, after the local sign-out: the provider's end-session page opened
/// here with the profile's browser rules (L1, A15), since the agent has no browser; or its
/// address printed; or, when the provider offers none, a plain sentence saying so.
enum EndSessionPage {
    static func show(_ result: JSONValue, context: CommandContext) async {
        switch result["endSession"]?.string {
        case "notOpened":
            guard let url = result["endSessionURL"]?.string else { return }
            let settings = try? context.profileFiles().load(context.profile)
            let browser = SystemBrowser(command: settings?.browserCommand, environment: context.environment)
            if await browser.open(url) {
                context.console.err("Opened the provider's sign-out page in the browser.\n")
            } else {
                context.console.err("To sign out at the provider too, open:\n  \(TerminalText.visible(url))\n")
            }
        case "opened":
            context.console.err("Opened the provider's sign-out page in the browser.\n")
        case "unavailable":
            let problem = result["endSessionProblem"]?.string ?? "the provider offers no sign-out page"
            context.console.err("versola: \(TerminalText.visible(problem)).\n")
        default:
            break
        }
    }
}
