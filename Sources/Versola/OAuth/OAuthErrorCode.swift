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
    /// `invalid_request`: a malformed request.
    case invalidRequest
    /// `invalid_client`: the client is unknown or not allowed to authenticate this way.
    case invalidClient
    /// `invalid_grant`: the code or refresh token is invalid, expired, revoked or was issued to another client.
    case invalidGrant
    /// `unauthorized_client`: the client may not use this grant or response type.
    case unauthorizedClient
    /// `unsupported_grant_type`.
    case unsupportedGrantType
    /// `invalid_scope`.
    case invalidScope
    /// `access_denied`: the person or the provider refused the authorization.
    case accessDenied
    /// `unsupported_response_type`.
    case unsupportedResponseType
    /// `server_error`: the authorization server failed.
    case serverError
    /// `temporarily_unavailable`: the authorization server is overloaded or in maintenance.
    case temporarilyUnavailable
    /// `login_required` (OIDC).
    case loginRequired
    /// `interaction_required` (OIDC).
    case interactionRequired
    /// `consent_required` (OIDC).
    case consentRequired
    /// `account_selection_required` (OIDC).
    case accountSelectionRequired
    /// `use_dpop_nonce` (RFC 9449 §8): retry with the nonce from `DPoP-Nonce`.
    case useDPoPNonce
    /// `invalid_dpop_proof` (RFC 9449 §5).
    case invalidDPoPProof
    /// `authorization_pending` (RFC 8628 §3.5): the person has not answered the device
    /// authorization yet; poll again after the interval.
    case authorizationPending
    /// `slow_down` (RFC 8628 §3.5): polled too often; poll again, 5 seconds slower from now on.
    case slowDown
    /// `expired_token` (RFC 8628 §3.5): the device code expired before the person answered.
    case expiredToken
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
        ("slow_down", .slowDown), ("expired_token", .expiredToken),
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
