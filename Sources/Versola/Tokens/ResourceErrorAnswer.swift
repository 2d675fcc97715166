import VersolaHTTP
/// A protected resource's error answer read by RFC 6750 §3 (and RFC 9449 §7.1 for DPoP):
/// the `error` and `error_description` of the `WWW-Authenticate` challenge (Bearer or DPoP),
/// else of an OAuth error body. Used for the UserInfo endpoint.
///
/// | answer | error |
/// |---|---|
/// | 401 with a step-up challenge (`insufficient_user_authentication`) | `.stepUp` (A10) |
/// | 401 (`invalid_token`, or no error) | `.reauthenticate(.sessionRejected)`: the session refreshes once and replays (E10) |
/// | 403 `insufficient_scope` | `.configuration(.invalidConfiguration)`: the scopes asked for do not cover it |
/// | anything else with an OAuth error | the code table of ``OAuthErrorResponse/versolaError(status:failedRequests:elapsed:)`` |
/// | anything else | `.recoverable(.server)` with the status |
///
/// Every error the provider's answer caused keeps its `error` and `error_description`,
/// cleaned (E14).
struct ResourceErrorAnswer {
    /// What the resource said, when it said anything.
    let error: OAuthErrorResponse?
    let status: Int
    let stepUp: StepUpChallenge?

    init(_ response: HTTPResponse) {
        status = response.status
        let header = WWWAuthenticate(headers: response.headers)
        stepUp = header.stepUpChallenge
        let challenge = header.challenges.first { $0.error?.isEmpty == false }
        if let challenge, let code = challenge.error {
            error = OAuthErrorResponse(
                code: OAuthErrorCode(rawValue: code), errorDescription: challenge["error_description"],
                errorURI: challenge["error_uri"])
        } else {
            error = OAuthErrorResponse(body: response.body)
        }
    }

    /// The error this answer is, for an operation with `budget`.
    func versolaError(budget: OperationBudget) -> VersolaError {
        if status == 401, let stepUp { return .stepUp(stepUp) }
        if status == 401 { return .reauthenticate(.sessionRejected) }
        guard let error else {
            return .recoverable(
                .server(ServerFailure(status: status, failedRequests: budget.failedRequests, elapsed: budget.elapsed)))
        }
        if error.code.rawValue == "insufficient_scope" {
            return .configuration(
                .invalidConfiguration(
                    "the access token lacks a scope the resource needs (status \(status)); request it with --scope",
                    provider: error.providerError))
        }
        return error.versolaError(status: status, failedRequests: budget.failedRequests, elapsed: budget.elapsed)
    }
}
