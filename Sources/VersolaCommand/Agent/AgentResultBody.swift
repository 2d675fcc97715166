import Versola
import VersolaJOSE

/// The `ok` member of a reply, typed: each operation answers with one of these
/// (``AgentOperation/resultType``), written and read only by its own type, so no caller reads
/// a reply by member name.
///
/// ```swift
/// let status = try AgentReply(line: line)?.result(AgentStatus.self)
/// print(status?.state ?? .unauthenticated)
/// ```
public protocol AgentResultBody: Sendable {
    /// Reads the `ok` member; nil when it is not this result.
    init?(json: JSONValue)
    /// The `ok` member written.
    var json: JSONValue { get }
}

extension AgentOperation {
    /// The result the operation answers with (an error is ``AgentErrorBody`` for all).
    public var resultType: any AgentResultBody.Type {
        switch self {
        case .token, .idToken: AgentTokenResult.self
        case .status, .watch, .unlock: AgentStatus.self
        case .userInfo: AgentUserInfo.self
        case .request: AgentHTTPResponse.self
        case .logout: AgentLogoutResult.self
        case .reload, .adopt, .ping, .stop: AgentAcknowledgement.self
        case .credential: AgentCredentialResult.self
        }
    }
}

extension AgentReply {
    /// The reply carrying `body` as its result.
    public static func ok(_ body: some AgentResultBody) -> AgentReply { .success(body.json) }

    /// The typed result, or the failure the reply carries.
    /// - Throws: the reply's error; for a result that is not a `Body` (or a printout), the
    ///   lost-answer error: the request reached the agent and is not sent again (R9).
    public func result<Body: AgentResultBody>(_ type: Body.Type) throws(VersolaError) -> Body {
        switch self {
        case .success(let json):
            guard let body = Body(json: json) else { throw AgentClient.lostAnswer }
            return body
        case .failure(let error): throw error
        case .printed: throw AgentClient.lostAnswer
        }
    }
}

extension AgentTokenResult: AgentResultBody {
    /// Reads a `token` result (`accessToken`) or an `id-token` one (`idToken`).
    public init?(json: JSONValue) {
        self.init(json, kind: json["accessToken"] == nil ? .id : .access)
    }
}
