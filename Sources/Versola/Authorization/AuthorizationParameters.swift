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
    /// `prompt` (`login`, `consent`, `select_account`, `none`).
    public var prompt: String?
    /// `login_hint`.
    public var loginHint: String?
    /// `acr_values`, most preferred first.
    public var acrValues: [String]
    /// `max_age` in seconds.
    public var maxAge: Int?
    /// `ui_locales`, most preferred first.
    public var uiLocales: [String]
    /// RFC 8707 `resource` indicators.
    public var resources: [String]
    /// Scopes to request instead of the configuration's, when set.
    public var scopes: [String]?

    /// No extra parameters.
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

    /// The parameters of a step-up challenge (S5).
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
