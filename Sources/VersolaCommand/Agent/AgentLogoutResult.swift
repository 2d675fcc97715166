import Versola
import VersolaJOSE

/// The result of `logout`: the new state, and with `endSession` what became of the provider's
/// end-session page (`{"state":"unauthenticated","endSession":"notOpened","endSessionURL":…}`).
///
/// The page's address with the ID token (`id_token_hint`) travels to the command alone, in
/// `endSessionTarget`; ``shown`` is the result without it, which is all that is ever printed
/// (``EndSessionPage``).
public struct AgentLogoutResult: AgentResultBody, Hashable {
    /// What became of the end-session page.
    public enum EndSession: Sendable, Hashable {
        /// Opened in a browser; the address without the token.
        case opened(url: String)
        /// Not opened: the address without the token, and the one with it (for the command only).
        case notOpened(url: String, target: String?)
        /// The provider offers none, or it could not be made: why.
        case unavailable(problem: String)
    }

    /// The member holding the address with the ID token; never printed.
    static let targetMember = "endSessionTarget"

    public var state: SessionState
    /// Nil when the end-session page was not asked for.
    public var endSession: EndSession?

    /// Creates a result.
    public init(state: SessionState, endSession: EndSession? = nil) {
        self.state = state
        self.endSession = endSession
    }

    /// The result of a logout that ended with `outcome`.
    init(state: SessionState, outcome: EndSessionOutcome?) {
        self.state = state
        switch outcome {
        case nil: endSession = nil
        case .opened(let url)?: endSession = .opened(url: url)
        case .notOpened(let page)?: endSession = .notOpened(url: page.shareableURL, target: page.url)
        case .unavailable(let error)?:
            if case .configuration(let detail) = error, let reason = detail.reason {
                endSession = .unavailable(problem: reason)
            } else {
                endSession = .unavailable(problem: "\(error)")
            }
        }
    }

    /// This result as it may be printed: without the address that carries the ID token.
    public var shown: AgentLogoutResult {
        guard case .notOpened(let url, _)? = endSession else { return self }
        return AgentLogoutResult(state: state, endSession: .notOpened(url: url, target: nil))
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("state", .string(state.rawValue))]
        switch endSession {
        case nil: break
        case .opened(let url)?: members += [("endSession", "opened"), ("endSessionURL", .string(url))]
        case .notOpened(let url, let target)?:
            members += [("endSession", "notOpened"), ("endSessionURL", .string(url))]
            if let target { members.append((Self.targetMember, .string(target))) }
        case .unavailable(let problem)?: members += [("endSession", "unavailable"), ("endSessionProblem", .string(problem))]
        }
        return .object(JSONObject(members))
    }

    public init?(json: JSONValue) {
        guard let state = json["state"]?.string.flatMap(SessionState.init(rawValue:)) else { return nil }
        self.state = state
        switch json["endSession"]?.string {
        case "opened": endSession = .opened(url: json["endSessionURL"]?.string ?? "")
        case "notOpened":
            endSession = .notOpened(url: json["endSessionURL"]?.string ?? "", target: json[Self.targetMember]?.string)
        case "unavailable":
            endSession = .unavailable(problem: json["endSessionProblem"]?.string ?? "the provider offers no sign-out page")
        default: endSession = nil
        }
    }
}
