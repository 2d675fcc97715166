import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// What a command asks the session agent to do.
public enum AgentOperation: String, Sendable, Hashable, CaseIterable {
    /// A valid access token (`args.forceRefresh`).
    case token
    /// A valid ID token (`args.forceRefresh`), for backends that validate ID tokens.
    case idToken = "id-token"
    /// The state and the user.
    case status
    /// The UserInfo claims.
    case userInfo = "userinfo"
    /// An HTTP request through the authenticated client.
    case request
    /// Sign out.
    case logout
    /// Read the profile's store again now (after a login by another process; the agent also
    /// notices by itself within milliseconds).
    case reload
    /// Hand the agent the access token of a login just finished in another process, so that a
    /// grant without a refresh token is served, and the first `token` after a login is not a refresh.
    case adopt
    /// Stream every state change (S3), one reply line each, until the client goes away.
    case watch
    /// Unlock the profile (S10): with `args.passphrase`, unlock its passphrase key source;
    /// without, read its key source again (a keyring unlocked meanwhile).
    case unlock
    /// Liveness check.
    case ping
    /// Ask the agent to exit.
    case stop
}

/// One request line of the agent protocol:
/// `{"op":"token","profile":"default","config":"/home/me/.config","state":"/home/me/.local/state","args":{…}}`.
///
/// `config` and `state` are the caller's own XDG directories: the agent answers each caller for
/// the profile where that caller keeps it (S11), never for the directories it was started with.
public struct AgentRequest: Sendable, Hashable {
    /// The operation.
    public var operation: AgentOperation
    /// The profile it concerns.
    public var profile: String
    /// The caller's XDG directories; nil lets the agent use its own.
    public var directories: XDGDirectories?
    /// Operation arguments.
    public var arguments: JSONObject

    /// Creates a request.
    public init(
        _ operation: AgentOperation, profile: String, directories: XDGDirectories? = nil,
        arguments: JSONObject = JSONObject()
    ) {
        self.operation = operation
        self.profile = profile
        self.directories = directories
        self.arguments = arguments
    }

    /// The line sent, newline included.
    public var line: [UInt8] {
        var members: [(String, JSONValue)] = [("op", .string(operation.rawValue)), ("profile", .string(profile))]
        if let directories {
            members.append(("config", .string(directories.configHome.path)))
            members.append(("state", .string(directories.stateHome.path)))
        }
        members.append(("args", .object(arguments)))
        return JSONValue.object(JSONObject(members)).serializedBytes() + [UInt8(ascii: "\n")]
    }

    /// Parses a request line; nil when it is not one (relative directories included).
    public init?(line: [UInt8]) {
        guard let value = try? JSONValue(parsing: line), let name = value["op"]?.string,
            let operation = AgentOperation(rawValue: name), let profile = value["profile"]?.string
        else { return nil }
        var directories: XDGDirectories?
        if let config = value["config"]?.string, let state = value["state"]?.string {
            guard config.hasPrefix("/"), state.hasPrefix("/") else { return nil }
            directories = XDGDirectories(
                stateHome: URL(fileURLWithPath: state, isDirectory: true), configHome: URL(fileURLWithPath: config, isDirectory: true))
        }
        self.init(operation, profile: profile, directories: directories, arguments: value["args"]?.object ?? JSONObject())
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
