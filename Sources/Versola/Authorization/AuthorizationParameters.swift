import VersolaHTTP
/// What an application may add to an authorization request, beyond what the engine
/// sets itself (client, redirect, PKCE, state, nonce, DPoP binding).
///
/// ```swift
/// var extra = AuthorizationParameters()
/// extra.prompt = "login"
/// extra.loginHint = "alice@example.com"
/// extra.acrValues = ["urn:example:mfa"]
/// try await session.login(extra)
/// ```
public struct AuthorizationParameters: Sendable, Hashable {
    /// Whether and how the provider asks the person again (`prompt`: `login`, `consent`,
    /// `select_account`, `none`).
    public var prompt: String?
    /// Who is expected to sign in, such as an e-mail address, to fill in the form (`login_hint`).
    public var loginHint: String?
    /// The authentication context classes asked for, most preferred first (`acr_values`).
    public var acrValues: [String]
    /// How long ago, in seconds, the person may have last authenticated (`max_age`).
    public var maxAge: Int?
    /// The languages for the provider's pages, most preferred first (`ui_locales`).
    public var uiLocales: [String]
    /// The resources the tokens are meant for (`resource` indicators, RFC 8707).
    public var resources: [String]
    /// Scopes to request instead of the configuration's, when set. Sent exactly as given (A12).
    public var scopes: [String]?
    /// Further parameters for this request (A18), such as `access_type=offline`, `hd` or
    /// `domain_hint`; they are laid over the configuration's
    /// ``ClientConfiguration/extraAuthorizationParameters``. A name the engine sets itself
    /// (``ownedNames``) or one of the typed members above is refused before anything is sent.
    public var extra: [String: String] = [:]

    /// Creates the parameters; nothing is added to the request unless given.
    public init(
        prompt: String? = nil, loginHint: String? = nil, acrValues: [String] = [], maxAge: Int? = nil,
        uiLocales: [String] = [], resources: [String] = [], scopes: [String]? = nil
    ) {
        self.prompt = prompt
        self.loginHint = loginHint
        self.acrValues = acrValues
        self.maxAge = maxAge
        self.uiLocales = uiLocales
        self.resources = resources
        self.scopes = scopes
    }

    /// Creates the parameters that answer a step-up challenge: its `acr_values` and `max_age` (S5).
    public init(stepUp challenge: StepUpChallenge) {
        self.init(acrValues: challenge.acrValues, maxAge: challenge.maxAge)
    }

    /// The names the engine sets itself (A18): an extra parameter may not carry one.
    public static let ownedNames: Set<String> = [
        "state", "nonce", "code_challenge", "code_challenge_method", "redirect_uri", "client_id", "response_type",
        "request_uri", "dpop_jkt", "scope",
    ]

    /// The names of the typed members: an extra parameter under one would send it twice.
    static let typedNames: [String: String] = [
        "prompt": "prompt", "login_hint": "loginHint", "acr_values": "acrValues", "max_age": "maxAge",
        "ui_locales": "uiLocales", "resource": "resources",
    ]

    /// Checks extra parameters' names (A18).
    /// - Throws: `.configuration(.invalidConfiguration)` for an empty name, a name the engine
    ///   owns, or a name that has a typed member.
    public static func validateExtra(_ extra: [String: String]) throws(VersolaError) {
        for name in extra.keys.sorted() {
            if name.isEmpty {
                throw .configuration(.invalidConfiguration("an extra authorization parameter has an empty name"))
            }
            if ownedNames.contains(name) || name.hasPrefix("code_challenge") {
                throw .configuration(
                    .invalidConfiguration(
                        "the authorization parameter \(name) is set by versola itself and cannot be given as an extra one"))
            }
            if let member = typedNames[name] {
                throw .configuration(
                    .invalidConfiguration(
                        "the authorization parameter \(name) has its own setting (\(member)); give it there, not as an extra one"))
            }
        }
    }

    /// The query or form pairs, in a stable order. `resource` may repeat; extra parameters
    /// follow, sorted by name.
    var pairs: [(String, String)] {
        var pairs: [(String, String)] = []
        if let prompt { pairs.append(("prompt", prompt)) }
        if let loginHint { pairs.append(("login_hint", loginHint)) }
        if !acrValues.isEmpty { pairs.append(("acr_values", acrValues.joined(separator: " "))) }
        if let maxAge { pairs.append(("max_age", String(maxAge))) }
        if !uiLocales.isEmpty { pairs.append(("ui_locales", uiLocales.joined(separator: " "))) }
        for resource in resources { pairs.append(("resource", resource)) }
        for name in extra.keys.sorted() { pairs.append((name, extra[name]!)) }
        return pairs
    }
}
