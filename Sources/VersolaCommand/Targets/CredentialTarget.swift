import Versola
import VersolaJOSE

/// One row of the target table (``TargetTable``): which profile serves a tool's target, with
/// which token, and how the tool is handed it.
public struct CredentialTarget: Sendable, Hashable {
    /// Where the token comes from. Today always the profile's session; registries that want
    /// their own token in exchange for it (Harbor, Artifactory: RFC 8693 or the registry's own
    /// exchange) will be another case here, and a row naming a source this versola does not
    /// know is read as served but unusable, never as someone else's target.
    public enum Source: String, Sendable, Hashable {
        /// The session's own token, as it is.
        case session
    }

    /// How a cargo registry is handed the token (the whole `Authorization` value cargo sends).
    public enum Authorization: String, Sendable, Hashable, CaseIterable {
        /// `Bearer <token>`.
        case bearer
        /// The token alone.
        case token
    }

    /// The tool.
    public var tool: TargetTool
    /// What it answers for.
    public var key: TargetKey
    /// The profile whose session serves it.
    public var profile: String
    /// The access token or the ID token.
    public var token: TokenKind
    /// The user name the tool sends with the token (nil for cargo, which sends none).
    public var username: String?
    /// Where the token comes from.
    public var source: Source
    /// Cargo: how the token is presented; nil for the other tools.
    public var authorization: Authorization?
    /// Cargo: the registry's name in cargo's config; nil for the other tools.
    public var registry: String?

    /// Creates a row; the user name defaults to the tool's convention for the key.
    public init(
        tool: TargetTool, key: TargetKey, profile: String, token: TokenKind = .access, username: String? = nil,
        authorization: Authorization? = nil, registry: String? = nil
    ) {
        self.tool = tool
        self.key = key
        self.profile = profile
        self.token = token
        self.username = username ?? tool.defaultUsername(for: key)
        self.source = .session
        self.authorization = tool == .cargo ? authorization ?? .bearer : nil
        self.registry = registry
    }

    /// The row as the table file keeps it.
    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("tool", .string(tool.rawValue)), ("match", .string(key.description)), ("profile", .string(profile)),
            ("token", .string(token.rawValue)), ("source", .string(unusableSource ?? source.rawValue)),
        ]
        if let username { members.append(("username", .string(username))) }
        if let authorization { members.append(("authorization", .string(authorization.rawValue))) }
        if let registry { members.append(("registry", .string(registry))) }
        return .object(JSONObject(members))
    }

    /// Reads a row; nil for one this versola cannot read at all (an unknown tool, no key).
    /// A row whose source it does not know is kept with ``unusableSource`` set.
    init?(json: JSONValue) {
        guard let tool = json["tool"]?.string.flatMap(TargetTool.init(rawValue:)), let text = json["match"]?.string,
            let key = TargetKey.asked(text, tool: tool), let profile = json["profile"]?.string,
            let token = json["token"]?.string.flatMap(TokenKind.init(rawValue:))
        else { return nil }
        self.init(
            tool: tool, key: key, profile: profile, token: token, username: json["username"]?.string,
            authorization: json["authorization"]?.string.flatMap(Authorization.init(rawValue:)),
            registry: json["registry"]?.string)
        unusableSource = json["source"]?.string.map { Source(rawValue: $0) == nil ? $0 : nil } ?? nil
    }

    /// The source a row names when this versola does not know it (a later token exchange).
    var unusableSource: String?
}
