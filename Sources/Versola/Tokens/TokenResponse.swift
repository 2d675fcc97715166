import VersolaHTTP
import VersolaJOSE

/// A successful token endpoint answer (RFC 6749 §5.1, OIDC Core §3.1.3.3).
///
/// Holds secrets: its `description` says which tokens are present, never what they are.
///
/// ```swift
/// let tokens = TokenResponse(accessToken: "…", tokenType: .dpop, expiresIn: .seconds(300))
/// if tokens.tokenType == .dpop, let lifetime = tokens.expiresIn {
///     print("a DPoP-bound token, good for", lifetime)
/// }
/// ```
public struct TokenResponse: Sendable, Hashable, CustomStringConvertible {
    /// The access token.
    public var accessToken: String
    /// How the access token is presented.
    public var tokenType: TokenType
    /// The access token's lifetime from when it was issued, when the provider said.
    public var expiresIn: Duration?
    /// A new refresh token, when one was issued (after a refresh: the rotated one).
    public var refreshToken: String?
    /// The ID token, when one was issued (always after a code exchange with `openid`).
    public var idToken: String?
    /// The granted scope, when the provider said (it may differ from the requested one).
    public var scope: String?

    /// The longest `expires_in` accepted: about 68 years. Anything larger is not a lifetime.
    public static let maximumExpiresIn: Int64 = Int64(Int32.max)

    /// Creates a response.
    public init(
        accessToken: String, tokenType: TokenType, expiresIn: Duration? = nil, refreshToken: String? = nil,
        idToken: String? = nil, scope: String? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
    }

    /// Reads a 2xx token answer.
    /// - Parameters:
    ///   - response: the answer (its status is used in the failure).
    ///   - budget: the operation's budget, for a failure's accounting.
    /// - Throws: `.recoverable(.server)` with the answer's status when the body is not usable:
    ///   not a JSON object, no `access_token`, a missing `token_type`, or a member of the wrong
    ///   type; `.configuration(.providerUnsupported)` for a `token_type` other than Bearer or DPoP.
    package init(_ response: HTTPResponse, budget: OperationBudget) throws(VersolaError) {
        func unusable(_ reason: String) -> VersolaError {
            .recoverable(
                .server(
                    ServerFailure(
                        status: response.status, failedRequests: budget.failedRequests, elapsed: budget.elapsed,
                        errorDescription: "token response \(reason)")))
        }
        guard let json = Self.document(of: response), case .object(let object) = json else {
            throw unusable("is not a JSON object")
        }
        guard let accessToken = object["access_token"]?.string, !accessToken.isEmpty else {
            throw unusable("has no access_token")
        }
        guard let typeName = object["token_type"]?.string else { throw unusable("has no token_type") }
        guard let tokenType = TokenType(wireValue: typeName) else {
            throw .configuration(.providerUnsupported("token_type \(typeName) is neither Bearer nor DPoP"))
        }
        var expiresIn: Duration?
        if let value = object["expires_in"], !value.isNull {
            guard let seconds = Self.seconds(value) else { throw unusable("has an expires_in that is not a lifetime") }
            expiresIn = .seconds(seconds)
        }
        func optionalString(_ name: String) throws(VersolaError) -> String? {
            guard let value = object[name], !value.isNull else { return nil }
            guard let text = value.string else { throw unusable("has a \(name) that is not a string") }
            return text.isEmpty ? nil : text
        }
        self.init(
            accessToken: accessToken, tokenType: tokenType, expiresIn: expiresIn,
            refreshToken: try optionalString("refresh_token"), idToken: try optionalString("id_token"),
            scope: try optionalString("scope"))
    }

    /// A token answer's members: its JSON object, or the fields of a form-encoded answer
    /// (`application/x-www-form-urlencoded`, as GitHub's OAuth apps answer when JSON is not asked
    /// for) as string members. Nil when the body is neither.
    static func document(of response: HTTPResponse) -> JSONValue? {
        if let json = try? JSONValue(parsing: response.body) { return json }
        let type = response.headers["Content-Type"]?.lowercased() ?? ""
        guard type.hasPrefix(FormBody.contentType), let form = FormBody(decoding: response.body) else { return nil }
        return .object(JSONObject(form.fields.map { ($0.name, JSONValue.string($0.value)) }))
    }

    /// Whether a 2xx answer is an OAuth error in disguise: an `error` member and no access token.
    static func isErrorAnswer(_ response: HTTPResponse) -> Bool {
        guard let document = document(of: response), document["access_token"] == nil else { return false }
        return OAuthErrorResponse(json: document) != nil
    }

    /// `expires_in` as whole seconds: a non-negative number, or a string of digits (some
    /// providers quote it). A fraction is dropped. Also read for the device flow's `expires_in`
    /// and `interval`.
    static func seconds(_ value: JSONValue) -> Int64? {
        switch value {
        case .integer(let seconds):
            return (0...maximumExpiresIn).contains(seconds) ? seconds : nil
        case .double(let seconds):
            guard seconds.isFinite, seconds >= 0, seconds <= Double(maximumExpiresIn) else { return nil }
            return Int64(seconds)
        case .string(let text):
            guard !text.isEmpty, text.utf8.count <= 12, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let seconds = Int64(text), seconds <= maximumExpiresIn
            else { return nil }
            return seconds
        default:
            return nil
        }
    }

    /// Which tokens are present, the type, lifetime and scope; never a token.
    public var description: String {
        var parts = ["\(tokenType.rawValue) access token"]
        if let expiresIn { parts.append("expires in \(expiresIn.components.seconds) s") }
        parts.append(refreshToken == nil ? "no refresh token" : "refresh token")
        parts.append(idToken == nil ? "no ID token" : "ID token")
        if let scope { parts.append("scope \(scope)") }
        return "TokenResponse(" + parts.joined(separator: ", ") + ")"
    }
}
