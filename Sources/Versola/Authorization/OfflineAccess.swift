import VersolaHTTP
extension ProviderMetadata {
    /// The `offline_access` scope (OIDC Core §11): asks for a refresh token usable while the
    /// person is away.
    public static let offlineAccessScope = "offline_access"

    /// The `openid` scope: asks for an ID token (OIDC Core §3.1.2.1).
    public static let openIDScope = "openid"

    /// The authorization parameters a login sends to this provider (A12, A16, A18).
    ///
    /// Scopes the caller gave (in `parameters` or the configuration) are sent exactly as given.
    /// Only the default scopes adapt to the provider: `openid` stays only where the provider
    /// speaks OpenID Connect (``speaksOpenIDConnect``), and `offline_access` only where it is
    /// listed in `scopes_supported` or no list is published (and not at a server that publishes
    /// no metadata at all). Whenever `offline_access` is sent, the request carries
    /// `prompt=consent`, as OIDC Core §11 requires (and providers such as pyoidc's enforce),
    /// unless the caller chose a prompt itself. The configuration's extra parameters are laid
    /// under the caller's.
    /// - Parameters:
    ///   - parameters: what the caller asked for.
    ///   - configuration: the scopes used when `parameters.scopes` is nil, and the extra
    ///     parameters of every request.
    /// - Returns: the parameters with the scopes to send set explicitly.
    public func authorizationParameters(
        _ parameters: AuthorizationParameters, for configuration: ClientConfiguration
    ) -> AuthorizationParameters {
        var adjusted = parameters
        let scopes = parameters.scopes ?? (configuration.usesDefaultScopes ? defaultScopes : configuration.scopes)
        if scopes.contains(Self.offlineAccessScope), adjusted.prompt == nil {
            adjusted.prompt = "consent"
        }
        adjusted.scopes = scopes
        // RFC 8707: a configuration bound to a resource names it in every request (A19).
        if let resource = configuration.resource, !adjusted.resources.contains(resource) {
            adjusted.resources.append(resource)
        }
        adjusted.extra = configuration.extraAuthorizationParameters.merging(parameters.extra) { _, call in call }
        return adjusted
    }

    /// ``ClientConfiguration/defaultScopes`` as this provider takes them (A12, A16).
    public var defaultScopes: [String] {
        ClientConfiguration.defaultScopes.filter { scope in
            switch scope {
            case Self.openIDScope: speaksOpenIDConnect
            case Self.offlineAccessScope:
                source != .configuration && (scopesSupported?.contains(Self.offlineAccessScope) ?? true)
            default: true
            }
        }
    }
}
