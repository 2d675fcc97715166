import VersolaHTTP
import VersolaJOSE

extension OAuthErrorResponse {
    /// The one place where a provider's error code becomes a ``VersolaError`` (E6, E9).
    ///
    /// The code alone decides, never the description nor the status (a provider answering
    /// 403 where RFC 6749 says 400 is read the same way):
    ///
    /// | code | error |
    /// |---|---|
    /// | `invalid_grant` | `.reauthenticate(.grantRejected)` |
    /// | `access_denied` | `.reauthenticate(.authorizationDenied)` |
    /// | `login_required`, `interaction_required`, `consent_required`, `account_selection_required` | `.reauthenticate(.interactionRequired)` |
    /// | `invalid_client`, `unauthorized_client`, `unsupported_grant_type`, `invalid_scope`, `unsupported_response_type` | `.configuration(.providerUnsupported)` |
    /// | `invalid_request` | `.configuration(.invalidConfiguration)` |
    /// | `invalid_target` | `.configuration(.invalidConfiguration)`, naming the resource (RFC 8707) |
    /// | `expired_token` | `.recoverable(.pendingRequestExpired)` |
    /// | `server_error`, `temporarily_unavailable`, `use_dpop_nonce`, `invalid_dpop_proof`, `authorization_pending`, `slow_down`, any other | `.recoverable(.server)` with the status |
    ///
    /// The DPoP codes are handled by the sender's one-time retries (R3) before they get here,
    /// and `authorization_pending` and `slow_down` by the device flow's polling (A14): only an
    /// answer where they make no sense reaches this table with them.
    /// A configuration or server error keeps the code and description, cleaned (E14).
    /// - Parameters:
    ///   - status: the HTTP status of the answer (0 for an error delivered on a redirect).
    ///   - failedRequests: the operation's failed requests so far, for a server failure.
    ///   - elapsed: the operation's elapsed time, for a server failure.
    public func versolaError(status: Int, failedRequests: Int = 1, elapsed: Duration = .zero) -> VersolaError {
        let answered = status > 0 ? "answered \(code.rawValue) (status \(status))" : "answered \(code.rawValue)"
        switch code {
        case .invalidGrant:
            return .reauthenticate(.grantRejected)
        case .accessDenied:
            return .reauthenticate(.authorizationDenied)
        case .loginRequired, .interactionRequired, .consentRequired, .accountSelectionRequired:
            return .reauthenticate(.interactionRequired)
        case .invalidClient, .unauthorizedClient, .unsupportedGrantType, .invalidScope, .unsupportedResponseType:
            return .configuration(
                .providerUnsupported("the provider \(answered): check the client registration", provider: providerError))
        case .invalidRequest:
            return .configuration(
                .invalidConfiguration("the provider \(answered): it calls the request malformed", provider: providerError))
        case .invalidTarget:
            return .configuration(
                .invalidConfiguration(
                    "the provider \(answered): it does not issue tokens for the resource asked for; check --resource",
                    provider: providerError))
        case .expiredToken:
            return .recoverable(.pendingRequestExpired)
        case .serverError, .temporarilyUnavailable, .useDPoPNonce, .invalidDPoPProof, .authorizationPending, .slowDown,
            .other:
            return .recoverable(
                .server(
                    ServerFailure(
                        status: status, failedRequests: failedRequests, elapsed: elapsed, errorCode: code.rawValue,
                        errorDescription: errorDescription)))
        }
    }

    /// The error for an answer an endpoint could not use: a 4xx (or an unexpected status) read
    /// through the code mapping when the body is an OAuth error, else `.recoverable(.server)`
    /// with the status.
    /// - Parameters:
    ///   - response: the answer.
    ///   - budget: the operation's budget, for the failure's accounting.
    public static func versolaError(for response: HTTPResponse, budget: OperationBudget) -> VersolaError {
        if let error = OAuthErrorResponse(body: response.body) {
            return error.versolaError(
                status: response.status, failedRequests: budget.failedRequests, elapsed: budget.elapsed)
        }
        return .recoverable(
            .server(ServerFailure(status: response.status, failedRequests: budget.failedRequests, elapsed: budget.elapsed)))
    }
}
