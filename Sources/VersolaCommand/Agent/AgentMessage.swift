import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// What a command asks the session agent to do: the `op` member of a request
/// (docs/agent-protocol.md lists each with its arguments and its answer).
public enum AgentOperation: String, Sendable, Hashable, CaseIterable {
    /// A valid access token (``AgentTokenArguments``).
    case token
    /// A valid ID token (``AgentTokenArguments``), for backends that validate ID tokens.
    case idToken = "id-token"
    /// The state and the user.
    case status
    /// The UserInfo claims.
    case userInfo = "userinfo"
    /// An HTTP request through the authenticated client (``AgentHTTPRequest``).
    case request
    /// Sign out (`endSession`).
    case logout
    /// Read the profile's store again now (after a login by another process; the agent also
    /// notices by itself within milliseconds).
    case reload
    /// Hand the agent the access token of a login just finished in another process
    /// (``AgentAdoptArguments``), so that a grant without a refresh token is served, and the
    /// first `token` after a login is not a refresh.
    case adopt
    /// Stream every state change (S3), one reply line each, until the client goes away.
    case watch
    /// Unlock the profile (S10): with a passphrase (``AgentUnlockArguments``), unlock its
    /// passphrase key source; without, read its key source again (a keyring unlocked meanwhile).
    case unlock
    /// Liveness check.
    case ping
    /// Ask the agent to exit.
    case stop
    /// A tool's credential for a target of the target table (``AgentCredentialArguments``).
    case credential
}

/// What a request asks, with its arguments typed: one case per ``AgentOperation``.
public enum AgentCall: Sendable, Hashable {
    case token(AgentTokenArguments)
    case idToken(AgentTokenArguments)
    case status
    case userInfo
    case request(AgentHTTPRequest)
    case logout(endSession: Bool)
    case reload
    case adopt(AgentAdoptArguments)
    case watch
    case unlock(AgentUnlockArguments)
    case ping
    case stop
    case credential(AgentCredentialArguments)

    /// The operation's name on the wire.
    public var operation: AgentOperation {
        switch self {
        case .token: .token
        case .idToken: .idToken
        case .status: .status
        case .userInfo: .userInfo
        case .request: .request
        case .logout: .logout
        case .reload: .reload
        case .adopt: .adopt
        case .watch: .watch
        case .unlock: .unlock
        case .ping: .ping
        case .stop: .stop
        case .credential: .credential
        }
    }

    /// The `args` member.
    var arguments: JSONObject {
        switch self {
        case .token(let arguments), .idToken(let arguments): arguments.object
        case .request(let arguments): arguments.object
        case .unlock(let arguments): arguments.object
        case .logout(let endSession): ["endSession": .bool(endSession)]
        case .adopt(let arguments): arguments.object
        case .credential(let arguments): arguments.object
        case .status, .userInfo, .reload, .watch, .ping, .stop: JSONObject()
        }
    }

    /// The call for `operation` with the `args` member `arguments`; nil when they do not fit.
    init?(_ operation: AgentOperation, arguments: JSONObject) {
        switch operation {
        case .token, .idToken:
            guard let token = AgentTokenArguments(arguments) else { return nil }
            self = operation == .token ? .token(token) : .idToken(token)
        case .status: self = .status
        case .userInfo: self = .userInfo
        case .request: self = .request(AgentHTTPRequest(arguments))
        case .logout: self = .logout(endSession: arguments["endSession"]?.bool ?? false)
        case .reload: self = .reload
        case .adopt:
            guard let adopt = AgentAdoptArguments(arguments) else { return nil }
            self = .adopt(adopt)
        case .watch: self = .watch
        case .unlock: self = .unlock(AgentUnlockArguments(arguments))
        case .ping: self = .ping
        case .stop: self = .stop
        case .credential:
            guard let credential = AgentCredentialArguments(arguments) else { return nil }
            self = .credential(credential)
        }
    }
}

/// The version of the agent protocol this build speaks: the `v` member of every request
/// and reply line (docs/agent-protocol.md).
public enum AgentProtocol {
    /// The version written; a line without `v` is read as this version too.
    public static let version: Int64 = 1
}

/// One request line of the agent protocol (docs/agent-protocol.md):
/// `{"v":1,"op":"token","profile":"default","config":"/home/me/.config","state":"/home/me/.local/state","args":{…}}`.
///
/// `config` and `state` are the caller's own XDG directories: the agent answers each caller for
/// the profile where that caller keeps it (S11), never for the directories it was started with.
public struct AgentRequest: Sendable, Hashable {
    /// The operation and its arguments.
    public var call: AgentCall
    /// The profile it concerns.
    public var profile: String
    /// The caller's XDG directories; nil lets the agent use its own.
    public var directories: XDGDirectories?

    /// Creates a request.
    public init(_ call: AgentCall, profile: String, directories: XDGDirectories? = nil) {
        self.call = call
        self.profile = profile
        self.directories = directories
    }

    /// The operation.
    public var operation: AgentOperation { call.operation }

    /// Why a request line is refused.
    enum Refusal: Error, Equatable {
        /// Not a request (not JSON, an unknown operation, relative directories, bad arguments).
        case malformed
        /// A version this build does not speak.
        case version(Int64)
    }

    /// The line sent, newline included.
    public var line: [UInt8] {
        var members: [(String, JSONValue)] = [
            ("v", .integer(AgentProtocol.version)), ("op", .string(operation.rawValue)), ("profile", .string(profile)),
        ]
        if let directories {
            members.append(("config", .string(directories.configHome.path)))
            members.append(("state", .string(directories.stateHome.path)))
        }
        members.append(("args", .object(call.arguments)))
        return JSONValue.object(JSONObject(members)).serializedBytes() + [UInt8(ascii: "\n")]
    }

    /// Parses a request line; nil when it is not one (see ``parse(_:)``).
    public init?(line: [UInt8]) {
        guard case .success(let request) = Self.parse(line) else { return nil }
        self = request
    }

    /// Parses a request line, saying why it is refused.
    static func parse(_ line: [UInt8]) -> Result<AgentRequest, Refusal> {
        guard let value = try? JSONValue(parsing: line), value.object != nil else { return .failure(.malformed) }
        let version = value["v"].map { $0.int64 ?? -1 } ?? AgentProtocol.version
        guard version == AgentProtocol.version else { return .failure(.version(version)) }
        guard let name = value["op"]?.string, let operation = AgentOperation(rawValue: name),
            let profile = value["profile"]?.string,
            let call = AgentCall(operation, arguments: value["args"]?.object ?? JSONObject())
        else { return .failure(.malformed) }
        var directories: XDGDirectories?
        if let config = value["config"]?.string, let state = value["state"]?.string {
            guard config.hasPrefix("/"), state.hasPrefix("/") else { return .failure(.malformed) }
            directories = XDGDirectories(
                stateHome: URL(fileURLWithPath: state, isDirectory: true), configHome: URL(fileURLWithPath: config, isDirectory: true))
        }
        return .success(AgentRequest(call, profile: profile, directories: directories))
    }

    /// The error answered for a refused line.
    static func error(for refusal: Refusal) -> VersolaError {
        switch refusal {
        case .malformed: .configuration(.invalidConfiguration("malformed agent request"))
        case .version(let version):
            .configuration(
                .invalidConfiguration(
                    "agent protocol version \(version) is not spoken by this agent (it speaks \(AgentProtocol.version)); "
                        + "stop it with versola agent --stop"))
        }
    }
}
