import Versola
import VersolaJOSE

/// What a command asks the session agent to do.
public enum AgentOperation: String, Sendable, Hashable, CaseIterable {
    /// A valid access token (`args.forceRefresh`).
    case token
    /// The state and the user.
    case status
    /// The UserInfo claims.
    case userInfo = "userinfo"
    /// An HTTP request through the authenticated client.
    case request
    /// Sign out.
    case logout
    /// Forget the profile's in-memory session and read the store again (after a login by
    /// another process).
    case reload
    /// Stream every state change (S3), one reply line each, until the client goes away.
    case watch
    /// Liveness check.
    case ping
    /// Ask the agent to exit.
    case stop
}

/// One request line of the agent protocol:
/// `{"op":"token","profile":"default","args":{"forceRefresh":false}}`.
public struct AgentRequest: Sendable, Hashable {
    /// The operation.
    public var operation: AgentOperation
    /// The profile it concerns.
    public var profile: String
    /// Operation arguments.
    public var arguments: JSONObject

    /// Creates a request.
    public init(_ operation: AgentOperation, profile: String, arguments: JSONObject = JSONObject()) {
        self.operation = operation
        self.profile = profile
        self.arguments = arguments
    }

    /// The line sent, newline included.
    public var line: [UInt8] {
        let value: JSONValue = ["op": .string(operation.rawValue), "profile": .string(profile), "args": .object(arguments)]
        return value.serializedBytes() + [UInt8(ascii: "\n")]
    }

    /// Parses a request line; nil when it is not one.
    public init?(line: [UInt8]) {
        guard let value = try? JSONValue(parsing: line), let name = value["op"]?.string,
            let operation = AgentOperation(rawValue: name), let profile = value["profile"]?.string
        else { return nil }
        self.init(operation, profile: profile, arguments: value["args"]?.object ?? JSONObject())
    }
}

/// One reply line: `{"ok":RESULT}` or `{"error":{"category":…,"cause":…,…}}` (E13).
public enum AgentReply: Sendable, Hashable {
    /// The operation's result.
    case success(JSONValue)
    /// The operation's failure.
    case failure(VersolaError)

    /// The line sent, newline included.
    public var line: [UInt8] {
        let value: JSONValue
        switch self {
        case .success(let result): value = ["ok": result]
        case .failure(let error): value = ["error": .object(ErrorReport.fields(of: error))]
        }
        return value.serializedBytes() + [UInt8(ascii: "\n")]
    }

    /// Parses a reply line; nil when it is not one.
    public init?(line: [UInt8]) {
        guard let value = try? JSONValue(parsing: line) else { return nil }
        if let result = value["ok"] {
            self = .success(result)
        } else if let fields = value["error"]?.object, let error = VersolaErrorCoding.decode(fields) {
            self = .failure(error)
        } else {
            return nil
        }
    }
}
