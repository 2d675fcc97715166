import VersolaJOSE

/// The results that only acknowledge: `ping` and `stop` (`{"pid":4242}`, `{"stopping":true}`),
/// `adopt` (`{"adopted":true}`) and `reload` (`{"reloaded":"default"}`).
public enum AgentAcknowledgement: AgentResultBody, Hashable {
    /// The agent's process id (`ping`).
    case pid(Int64)
    /// The agent stops (`stop`).
    case stopping
    /// Whether the access token handed over was taken (`adopt`).
    case adopted(Bool)
    /// The profile whose store was read again (`reload`).
    case reloaded(String)

    public var json: JSONValue {
        switch self {
        case .pid(let pid): ["pid": .integer(pid)]
        case .stopping: ["stopping": true]
        case .adopted(let adopted): ["adopted": .bool(adopted)]
        case .reloaded(let profile): ["reloaded": .string(profile)]
        }
    }

    public init?(json: JSONValue) {
        if let pid = json["pid"]?.int64 {
            self = .pid(pid)
        } else if json["stopping"]?.bool == true {
            self = .stopping
        } else if let adopted = json["adopted"]?.bool {
            self = .adopted(adopted)
        } else if let profile = json["reloaded"]?.string {
            self = .reloaded(profile)
        } else {
            return nil
        }
    }
}
