import VersolaJOSE

/// The result of the agent's `credential` request when it is not a printout:
/// `{"served":false}` when no target covers the address, else `{"target":ROW,"token":RESULT}`
/// (docs/agent-protocol.md, "credential"). Written and read only here.
public struct AgentCredentialResult: AgentResultBody, Hashable {
    /// The target and its token; nil when no target covers the address.
    public var served: (target: CredentialTarget, token: AgentTokenResult)? {
        target.flatMap { target in token.map { (target, $0) } }
    }

    private var target: CredentialTarget?
    private var token: AgentTokenResult?

    /// "Not mine": no target covers the address.
    public static let notServed = AgentCredentialResult()

    private init() {}

    /// The answer for `target`, served with `token`.
    public init(target: CredentialTarget, token: AgentTokenResult) {
        self.target = target
        self.token = token
    }

    /// Reads the `ok` member; nil when it is not this result.
    public init?(json: JSONValue) {
        if json["served"]?.bool == false {
            self.init()
            return
        }
        guard let target = json["target"].flatMap(CredentialTarget.init(json:)),
            let token = json["token"].flatMap({ AgentTokenResult($0, kind: target.token) })
        else { return nil }
        self.init(target: target, token: token)
    }

    /// The `ok` member written.
    public var json: JSONValue {
        guard let target, let token else { return ["served": false] }
        return ["target": target.json, "token": token.json]
    }
}
