import VersolaHTTP
/// The provider behaviours that break the standards and that the engine works around, each
/// named, documented with the provider it was seen with, and able to be turned off.
///
/// A workaround reads an answer differently from what RFC 6749 says, so each one is held to
/// the exact shape the provider sends: anything else is read the standard way.
///
/// ```swift
/// var configuration = ClientConfiguration(issuer: "https://login.example.com", clientID: "cli")
/// configuration.providerQuirks.emptyBadRequestRefusesRefreshToken = false   // strict RFC 6749
/// try configuration.validate()
/// ```
public struct ProviderQuirks: Sendable, Hashable {
    /// Treats an empty `400` answer to a refresh as a refusal of the refresh token: glewlwyd
    /// answers so, not with `invalid_grant`, when the token is revoked, reused or expired
    /// (Conformance/interop/glewlwyd.md, item 7).
    ///
    /// When on, exactly that answer to a refresh (status 400, a body of at most white space)
    /// reads as `invalid_grant`, so the session signs out instead of retrying a dead token.
    /// Any other 400 without an OAuth error body (an HTML page from a proxy, JSON without
    /// `error`) stays `recoverable(server)` and keeps the session. On by default.
    public var emptyBadRequestRefusesRefreshToken: Bool

    /// Treats an `invalid_request` answer to a refresh that names the refresh token as a
    /// refusal of the token: idpyoidc answers so ("Refresh token inactive"), not with
    /// `invalid_grant`, when the token is revoked or was rotated away
    /// (Conformance/interop/idpyoidc.md).
    ///
    /// When on, an `invalid_request` to a refresh whose description names the refresh token
    /// reads as `invalid_grant`; any other `invalid_request` stays a configuration error. On by
    /// default.
    public var invalidRequestNamingRefreshTokenRefusesIt: Bool

    /// Every workaround on (the default).
    public init(emptyBadRequestRefusesRefreshToken: Bool = true, invalidRequestNamingRefreshTokenRefusesIt: Bool = true) {
        self.emptyBadRequestRefusesRefreshToken = emptyBadRequestRefusesRefreshToken
        self.invalidRequestNamingRefreshTokenRefusesIt = invalidRequestNamingRefreshTokenRefusesIt
    }

    /// No workaround: every answer is read as the standards say.
    public static let none = ProviderQuirks(
        emptyBadRequestRefusesRefreshToken: false, invalidRequestNamingRefreshTokenRefusesIt: false)

    /// Whether `response`, the answer to a refresh-token request with `error` as its OAuth
    /// error (nil when it has none), is a refusal of the refresh token in one of the shapes
    /// above.
    package func refusesRefreshToken(_ response: HTTPResponse, error: OAuthErrorResponse?) -> Bool {
        guard let error else {
            return emptyBadRequestRefusesRefreshToken && response.status == 400
                && response.body.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        }
        guard invalidRequestNamingRefreshTokenRefusesIt, error.code == .invalidRequest,
            let description = error.errorDescription
        else { return false }
        return description.lowercased().contains("refresh token")
    }
}
