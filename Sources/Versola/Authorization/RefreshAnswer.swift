import VersolaHTTP
/// A token endpoint's answer to a refresh, not yet checked: what
/// ``OpenIDClient/requestRefresh(_:budget:)`` returns and
/// ``OpenIDClient/acceptRefresh(_:)`` turns into a grant.
package struct RefreshAnswer: Sendable {
    /// The grant that was refreshed.
    public let grant: Grant
    let tokens: TokenResponse
    let metadata: ProviderMetadata
    let budget: OperationBudget

    /// The new refresh token when the provider rotated it (it differs from the one spent).
    /// Secret: store it before anything else happens (P10).
    public var rotatedRefreshToken: String? {
        guard let fresh = tokens.refreshToken, fresh != grant.refreshToken else { return nil }
        return fresh
    }
}
