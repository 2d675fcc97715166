import Versola
import VersolaHTTP
import VersolaJOSE

/// One line pasted while `versola login` waits (L2): handed to the login waiting in this
/// process, which takes it only when it is that login's response (A4). Anything else is a
/// message and the login goes on waiting.
enum PastedRedirect {
    /// Hands `pasted` to the session's login.
    /// - Returns: nil when the login has its redirect (stop reading), else the text to show
    ///   before reading the next line.
    static func deliver(_ pasted: String, to session: Session, json: Bool) async -> String? {
        switch await session.offerRedirect(pasted) {
        case nil, .alreadyFinished?:
            return nil
        case .noLoginWaiting?:
            // No login waits in this process: a pending request restored from the store.
            do throws(VersolaError) {
                try await session.deliverRedirect(pasted)
                return nil
            } catch {
                return ErrorReport.render(.versola(error), json: json)
            }
        case let refusal?:
            let message = "\(refusal); still waiting for the sign-in"
            if json {
                let notice: JSONValue = ["notice": ["cause": .string(String(describing: refusal.cause)), "message": .string(message)]]
                return notice.serialized() + "\n"
            }
            return "versola: \(message). Paste the address the browser ends on.\n"
        }
    }
}

extension RedirectRefusal {
    /// The case's name, for `--json`.
    fileprivate var cause: String {
        switch self {
        case .notAResponse: "notAResponse"
        case .otherRequest: "otherRequest"
        case .alreadyFinished: "alreadyFinished"
        case .noLoginWaiting: "noLoginWaiting"
        }
    }
}
