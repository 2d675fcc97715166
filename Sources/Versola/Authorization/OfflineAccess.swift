import VersolaHTTP
extension ProviderMetadata {
    /// The `offline_access` scope (OIDC Core §11): asks for a refresh token usable while the
    /// person is away.
    public static let offlineAccessScope = "offline_access"

    /// The authorization parameters a login sends to this provider (A12).
    ///
    /// `offline_access` stays in the requested scopes only when the provider lists it in
    /// `scopes_supported` or publishes no such list; a provider that lists scopes without it
    /// would refuse the request or ignore the scope. When it stays, the request carries
    /// `prompt=consent`, as OIDC Core §11 requires (and providers such as pyoidc's enforce),
    /// unless the caller chose a prompt itself: a caller's `prompt` (`login`, `none`, …) is
    /// sent unchanged.
    /// - Parameters:
    ///   - parameters: what the caller asked for.
    ///   - configuration: the scopes used when `parameters.scopes` is nil.
    /// - Returns: the parameters with the scopes to send set explicitly.
    public func authorizationParameters(
        _ parameters: AuthorizationParameters, for configuration: ClientConfiguration
    ) -> AuthorizationParameters {
        var adjusted = parameters
        var scopes = parameters.scopes ?? configuration.scopes
        if let supported = scopesSupported, !supported.contains(Self.offlineAccessScope) {
            scopes.removeAll { $0 == Self.offlineAccessScope }
        }
        if scopes.contains(Self.offlineAccessScope), adjusted.prompt == nil {
            adjusted.prompt = "consent"
        }
        adjusted.scopes = scopes
        return adjusted
    }
}
