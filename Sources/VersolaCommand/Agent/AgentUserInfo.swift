import VersolaJOSE

/// The result of `userinfo`: the provider's UserInfo claims, as it sent them (A8).
public struct AgentUserInfo: AgentResultBody, Hashable {
    /// The claims, in the provider's order.
    public var claims: JSONObject

    /// Creates a result.
    public init(claims: JSONObject) {
        self.claims = claims
    }

    public var json: JSONValue { .object(claims) }

    public init?(json: JSONValue) {
        guard let claims = json.object else { return nil }
        self.claims = claims
    }
}
