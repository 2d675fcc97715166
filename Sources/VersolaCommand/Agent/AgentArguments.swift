import Foundation
import Versola
import VersolaJOSE

/// The arguments of `token` and `id-token`: `{"forceRefresh":false,"print":{"format":"raw"}}`.
public struct AgentTokenArguments: Sendable, Hashable {
    /// Refresh even while the held token is valid (T4).
    public var forceRefresh: Bool
    /// Answer with the bytes `versola token` prints (``AgentPrintout``) rather than the token
    /// result; nil for the result.
    public var print: AgentTokenPrint?

    /// Creates arguments.
    public init(forceRefresh: Bool = false, print: AgentTokenPrint? = nil) {
        self.forceRefresh = forceRefresh
        self.print = print
    }

    /// The `args` member.
    var object: JSONObject {
        var object: JSONObject = ["forceRefresh": .bool(forceRefresh)]
        if let print { object["print"] = .object(print.object) }
        return object
    }

    /// Reads the `args` member; nil for a `print` that names no known format.
    init?(_ object: JSONObject) {
        forceRefresh = object["forceRefresh"]?.bool ?? false
        if let value = object["print"] {
            guard let print = value.object.flatMap(AgentTokenPrint.init) else { return nil }
            self.print = print
        }
    }
}

/// How the agent renders a token for `versola token` (``TokenOutput``): the format, and for
/// `k8s` the ExecCredential version kubectl asked for.
public struct AgentTokenPrint: Sendable, Hashable {
    /// `raw`, `json` or `k8s`.
    public var format: TokenFormat
    /// The ExecCredential's `apiVersion` (`k8s` only).
    public var apiVersion: ExecCredentialVersion

    /// Creates a print request.
    public init(format: TokenFormat, apiVersion: ExecCredentialVersion = .v1) {
        self.format = format
        self.apiVersion = apiVersion
    }

    /// `{"format":"raw"}`, or with `apiVersion` for `k8s`.
    var object: JSONObject {
        var object: JSONObject = ["format": .string(format.rawValue)]
        if format == .k8s { object["apiVersion"] = .string(apiVersion.rawValue) }
        return object
    }

    init?(_ object: JSONObject) {
        guard let name = object["format"]?.string, let format = TokenFormat(rawValue: name) else { return nil }
        self.format = format
        let version = object["apiVersion"]?.string ?? ExecCredentialVersion.v1.rawValue
        guard let apiVersion = ExecCredentialVersion(rawValue: version) else { return nil }
        self.apiVersion = apiVersion
    }

    /// The answer for `result`: what `versola token` prints, or why it prints nothing (kubectl
    /// sends no DPoP proofs, so a DPoP-bound access token is refused for `k8s`).
    /// - Parameter now: seconds since 1970, for an unknown expiry (``TokenOutput``).
    func reply(for result: AgentTokenResult, profile: String, now: Int64 = Int64(time(nil))) -> AgentReply {
        if format == .k8s, result.kind == .access, result.tokenType == .dpop {
            return .failure(BearerOnlyTool.kubectl.dpopRefused(profile: profile))
        }
        let text = TokenOutput.render(result, format: format, apiVersion: apiVersion, now: now)
        return .printed(AgentPrintout(bytes: Array(text.utf8)))
    }
}

/// The result of `token` (`{"accessToken":…,"tokenType":"Bearer","expiresAt":1893456000}`) or
/// `id-token` (`{"idToken":…,"expiresAt":…}`); `expiresAt` is seconds since 1970 or null.
public struct AgentTokenResult: Sendable, Hashable {
    /// Which token it is.
    public var kind: TokenKind
    /// The token. Secret.
    public var value: String
    /// How an access token is presented (always `Bearer` for an ID token, which has none).
    public var tokenType: TokenType
    /// When it expires, in seconds since 1970; nil when unknown.
    public var expiresAt: Int64?

    /// Creates a result.
    public init(kind: TokenKind, value: String, tokenType: TokenType = .bearer, expiresAt: Int64?) {
        self.kind = kind
        self.value = value
        self.tokenType = tokenType
        self.expiresAt = expiresAt
    }

    /// The result for an access token a session gave.
    init(_ token: AccessToken) {
        self.init(
            kind: .access, value: token.value, tokenType: token.tokenType,
            expiresAt: token.expiresAt.map { Int64($0.timeIntervalSince1970) })
    }

    /// The `ok` member.
    public var json: JSONValue {
        let expiry: JSONValue = expiresAt.map { .integer($0) } ?? .null
        switch kind {
        case .access: return ["accessToken": .string(value), "tokenType": .string(tokenType.rawValue), "expiresAt": expiry]
        case .id: return ["idToken": .string(value), "expiresAt": expiry]
        }
    }

    /// Reads a result of `kind`; nil when it is not one (no token, an unknown token type, an
    /// expiry that is not a whole number).
    init?(_ json: JSONValue, kind: TokenKind) {
        guard let value = json[kind.resultMember]?.string else { return nil }
        var tokenType = TokenType.bearer
        if kind == .access, let type = json["tokenType"] {
            guard let named = type.string.flatMap(TokenType.init(rawValue:)) else { return nil }
            tokenType = named
        }
        var expiresAt: Int64?
        if let expiry = json["expiresAt"], !expiry.isNull {
            guard let seconds = expiry.int64 else { return nil }
            expiresAt = seconds
        }
        self.init(kind: kind, value: value, tokenType: tokenType, expiresAt: expiresAt)
    }
}

/// The arguments of `adopt`: `{"accessToken":…,"idToken":…,"expiresAt":…}` (`expiresAt`, in
/// seconds since 1970, only when known).
public struct AgentAdoptArguments: Sendable, Hashable {
    /// The access token the login got. Secret.
    public var accessToken: String
    /// The ID token of the grant it belongs to, which must be the one on disk.
    public var idToken: String?
    /// When the access token expires.
    public var expiresAt: Int64?

    /// Creates arguments.
    public init(accessToken: String, idToken: String?, expiresAt: Int64?) {
        self.accessToken = accessToken
        self.idToken = idToken
        self.expiresAt = expiresAt
    }

    var object: JSONObject {
        var object: JSONObject = ["accessToken": .string(accessToken), "idToken": idToken.map { .string($0) } ?? .null]
        if let expiresAt { object["expiresAt"] = .integer(expiresAt) }
        return object
    }

    init?(_ object: JSONObject) {
        guard let accessToken = object["accessToken"]?.string else { return nil }
        self.init(accessToken: accessToken, idToken: object["idToken"]?.string, expiresAt: object["expiresAt"]?.int64)
    }
}
