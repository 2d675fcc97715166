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
    /// Scopes to request instead of the configuration's, when set.
    public var scopes: [String]?

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

    /// The query or form pairs, in a stable order. `resource` may repeat.
    var pairs: [(String, String)] {
        var pairs: [(String, String)] = []
        if let prompt { pairs.append(("prompt", prompt)) }
        if let loginHint { pairs.append(("login_hint", loginHint)) }
        if !acrValues.isEmpty { pairs.append(("acr_values", acrValues.joined(separator: " "))) }
        if let maxAge { pairs.append(("max_age", String(maxAge))) }
        if !uiLocales.isEmpty { pairs.append(("ui_locales", uiLocales.joined(separator: " "))) }
        for resource in resources { pairs.append(("resource", resource)) }
        return pairs
    }
}
