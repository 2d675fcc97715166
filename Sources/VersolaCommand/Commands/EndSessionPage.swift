import Versola
import VersolaHTTP
import VersolaJOSE

/// `logout --end-session`, after the local sign-out: the provider's end-session page opened
/// here with the profile's browser rules (L1, A15), since the agent has no browser; or its
/// address printed; or, when the provider offers none, a plain sentence saying so.
///
/// The address with the ID token (`id_token_hint`) comes from the session host in
/// ``targetMember``, is taken out of the reply before anything is printed, and reaches the
/// browser only through a ``OneTimeRedirect``: the browser's command line holds a loopback
/// address that works once. What is printed, and `endSessionURL` in `--json`, is the
/// address without the token.
enum EndSessionPage {
    /// The reply member holding the address with the ID token; never printed.
    static let targetMember = "endSessionTarget"

    /// What the logout reply says of the end-session page (none when it was not asked for).
    /// The address with the ID token goes to the command only, in ``targetMember``.
    static func members(for outcome: EndSessionOutcome?) -> [(String, JSONValue)] {
        switch outcome {
        case nil: return []
        case .opened(let url)?: return [("endSession", "opened"), ("endSessionURL", .string(url))]
        case .notOpened(let page)?:
            return [
                ("endSession", "notOpened"), ("endSessionURL", .string(page.shareableURL)), (targetMember, .string(page.url)),
            ]
        case .unavailable(let error)?:
            let problem: String
            if case .configuration(let detail) = error, let reason = detail.reason { problem = reason } else { problem = "\(error)" }
            return [("endSession", "unavailable"), ("endSessionProblem", .string(problem))]
        }
    }

    /// The reply as it may be shown: without ``targetMember``.
    static func shown(_ result: JSONValue) -> JSONValue {
        guard let object = result.object, object[targetMember] != nil else { return result }
        return .object(JSONObject(object.filter { $0.name != targetMember }.map { ($0.name, $0.value) }))
    }

    static func show(_ result: JSONValue, context: CommandContext) async {
        switch result["endSession"]?.string {
        case "notOpened":
            if let target = result[targetMember]?.string {
                let settings = try? context.profileFiles().load(context.profile)
                let browser = SystemBrowser(command: settings?.browserCommand, environment: context.environment)
                if await OneTimeRedirect.open(target, in: browser, random: SystemRandomSource(), clock: SystemClock()) {
                    context.console.err("Opened the provider's sign-out page in the browser.\n")
                    return
                }
            }
            guard let url = result["endSessionURL"]?.string else { return }
            context.console.err("To sign out at the provider too, open:\n  \(TerminalText.visible(url))\n")
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
