import VersolaHTTP
/// An OAuth 2.0 / OpenID Connect `error` code as a provider sends it (RFC 6749 §4.1.2.1 and
/// §5.2, OIDC Core §3.1.2.6, RFC 9449 §12.2, RFC 8628 §3.5). Codes this client does not know keep their text
/// in ``other(_:)``.
///
/// ```swift
/// assert(OAuthErrorCode(rawValue: "invalid_grant") == .invalidGrant)
/// assert(OAuthErrorCode(rawValue: "slow_down") == .slowDown)
/// assert(OAuthErrorCode(rawValue: "custom_thing") == .other("custom_thing"))
/// ```
public enum OAuthErrorCode: Sendable, Hashable, CustomStringConvertible {
    /// The request was malformed (`invalid_request`).
    case invalidRequest
    /// The client is unknown or not allowed to authenticate this way (`invalid_client`).
    case invalidClient
    /// The code or refresh token is invalid, expired, revoked or was issued to another client
    /// (`invalid_grant`).
    case invalidGrant
    /// The client may not use this grant or response type (`unauthorized_client`).
    case unauthorizedClient
    /// The provider does not support the grant type asked for (`unsupported_grant_type`).
    case unsupportedGrantType
    /// A requested scope is unknown, malformed or beyond what the client may ask for (`invalid_scope`).
    case invalidScope
    /// The person or the provider refused the authorization (`access_denied`).
    case accessDenied
    /// The provider does not support the response type asked for (`unsupported_response_type`).
    case unsupportedResponseType
    /// The authorization server failed (`server_error`).
    case serverError
    /// The authorization server is overloaded or in maintenance (`temporarily_unavailable`).
    case temporarilyUnavailable
    /// The person must sign in, which a request with `prompt=none` forbids (`login_required`, OIDC).
    case loginRequired
    /// The person must interact with the provider, which `prompt=none` forbids
    /// (`interaction_required`, OIDC).
    case interactionRequired
    /// The person must consent, which `prompt=none` forbids (`consent_required`, OIDC).
    case consentRequired
    /// The person must choose an account, which `prompt=none` forbids
    /// (`account_selection_required`, OIDC).
    case accountSelectionRequired
    /// The server wants a nonce in the DPoP proof: retry with the one from `DPoP-Nonce`
    /// (`use_dpop_nonce`, RFC 9449 §8).
    case useDPoPNonce
    /// The DPoP proof was refused (`invalid_dpop_proof`, RFC 9449 §5).
    case invalidDPoPProof
    /// The person has not answered the device authorization yet: poll again after the interval
    /// (`authorization_pending`, RFC 8628 §3.5).
    case authorizationPending
    /// Polled too often: poll again, 5 seconds slower from now on (`slow_down`, RFC 8628 §3.5).
    case slowDown
    /// The device code expired before the person answered (`expired_token`, RFC 8628 §3.5).
    case expiredToken
    /// The resource asked for is unknown or not allowed to this client (`invalid_target`,
    /// RFC 8707 §2).
    case invalidTarget
    /// Any other code, as sent.
    case other(String)

    private static let known: [(String, OAuthErrorCode)] = [
        ("invalid_request", .invalidRequest), ("invalid_client", .invalidClient), ("invalid_grant", .invalidGrant),
        ("unauthorized_client", .unauthorizedClient), ("unsupported_grant_type", .unsupportedGrantType),
        ("invalid_scope", .invalidScope), ("access_denied", .accessDenied),
        ("unsupported_response_type", .unsupportedResponseType), ("server_error", .serverError),
        ("temporarily_unavailable", .temporarilyUnavailable), ("login_required", .loginRequired),
        ("interaction_required", .interactionRequired), ("consent_required", .consentRequired),
        ("account_selection_required", .accountSelectionRequired), ("use_dpop_nonce", .useDPoPNonce),
        ("invalid_dpop_proof", .invalidDPoPProof), ("authorization_pending", .authorizationPending),
        ("slow_down", .slowDown), ("expired_token", .expiredToken), ("invalid_target", .invalidTarget),
    ]

    /// The code for a wire value; exact and case-sensitive, as RFC 6749 defines the values.
    public init(rawValue: String) {
        self = Self.known.first { $0.0 == rawValue }?.1 ?? .other(rawValue)
    }

    /// The wire value (`invalid_grant`, …).
    public var rawValue: String {
        if case .other(let text) = self { return text }
        return Self.known.first { $0.1 == self }?.0 ?? ""
    }

    /// The wire value.
    public var description: String { rawValue }
}
