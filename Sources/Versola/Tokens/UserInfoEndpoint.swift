import VersolaHTTP
import Foundation
import VersolaJOSE

/// The provider's UserInfo endpoint (OIDC Core §5.3), read with the access token (A8).
///
/// Sent with kind `.read` (repeated per R5) through the ``EndpointSender``, which presents the
/// token in the grant's scheme. Only plain JSON answers are read.
///
/// ```swift
/// let endpoint = UserInfoEndpoint(url: metadata.userInfoEndpoint!, sender: sender)
/// let info = try await endpoint.fetch(accessToken: token, expectedSubject: idClaims.subject, budget: budget)
/// ```
package struct UserInfoEndpoint: Sendable {
    /// The UserInfo endpoint URL.
    public let url: URL
    private let sender: EndpointSender

    /// Creates the endpoint.
    public init(url: URL, sender: EndpointSender) {
        self.url = url
        self.sender = sender
    }

    /// Fetches the claims and checks that they describe the person of the ID token.
    /// - Parameters:
    ///   - accessToken: the access token.
    ///   - expectedSubject: the ID token's `sub`; nil for a grant without an ID token (A16),
    ///     whose answer is then taken as it is.
    ///   - budget: the operation's budget.
    ///   - dpopKey: the key a DPoP-bound token is bound to; the token then goes as
    ///     `Authorization: DPoP` with a proof carrying `ath`.
    /// - Returns: the checked claims.
    /// - Throws: `.configuration(.idTokenRejected)` when `sub` is missing or differs (the answer
    ///   is not used); for an error answer, per RFC 6750 (``ResourceErrorAnswer``): on a 401
    ///   `.reauthenticate(.sessionRejected)` (the session layer refreshes once and replays, E10)
    ///   or `.stepUp`; on a 403 `insufficient_scope` `.configuration(.invalidConfiguration)`;
    ///   else by the OAuth code table, or `.recoverable(.server)`; `.recoverable(.server)` for a
    ///   body that is not a JSON object; the sender's errors.
    public func fetch(
        accessToken: String, expectedSubject: String?, budget: OperationBudget, dpopKey: DPoPKey? = nil
    ) async throws(VersolaError) -> UserInfo {
        var request = HTTPRequest(method: .get, url: url)
        request.headers.add("Accept", "application/json")
        let response = try await sender.send(
            request, kind: .read, budget: budget, accessToken: accessToken, dpopKey: dpopKey)
        func serverFailure(_ reason: String?) -> VersolaError {
            .recoverable(
                .server(
                    ServerFailure(
                        status: response.status, failedRequests: budget.failedRequests, elapsed: budget.elapsed,
                        errorDescription: reason)))
        }
        guard response.status == 200 else {
            let answer = ResourceErrorAnswer(response)
            if let said = answer.error?.providerError {
                sender.environment.log.record(VersolaLogEvent(.warning, "userinfo answered \(response.status): \(said)"))
            }
            throw answer.versolaError(budget: budget)
        }
        guard let json = try? JSONValue(parsing: response.body), case .object(let claims) = json else {
            throw serverFailure("the userinfo answer is not a JSON object")
        }
        let subject = claims["sub"]?.string
        // A8 holds where there is an ID token to compare with; without one (A16) there is none.
        guard let expectedSubject else { return UserInfo(subject: subject, claims: claims) }
        guard let subject else {
            throw .configuration(.idTokenRejected(IDTokenRejection(.claimMissing, "userinfo sub is missing")))
        }
        guard subject == expectedSubject else {
            sender.environment.log.record(VersolaLogEvent(.warning, "userinfo answered for another subject; ignored"))
            throw .configuration(.idTokenRejected(IDTokenRejection(.subjectChanged, "userinfo sub differs from the ID token's sub")))
        }
        return UserInfo(subject: subject, claims: claims)
    }
}
