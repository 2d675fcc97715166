import Foundation

/// The provider's RFC 7009 revocation endpoint, used at logout to revoke the refresh token (A9).
///
/// Fire-and-forget: ``revoke(refreshToken:budget:)`` never throws. Logout wipes the grant
/// locally whatever the answer (S9); the result only says whether the provider confirmed.
///
/// ```swift
/// if let url = metadata.revocationEndpoint {
///     _ = await RevocationEndpoint(url: url, clientID: configuration.clientID, sender: sender)
///         .revoke(refreshToken: refreshToken, budget: budget)
/// }
/// ```
public struct RevocationEndpoint: Sendable {
    /// The revocation endpoint URL.
    public let url: URL
    /// The public client's `client_id`.
    public let clientID: String
    private let sender: EndpointSender

    /// Creates the endpoint.
    public init(url: URL, clientID: String, sender: EndpointSender) {
        self.url = url
        self.clientID = clientID
        self.sender = sender
    }

    /// Asks the provider to revoke a refresh token: `token`, `token_type_hint=refresh_token`
    /// and `client_id`, form-encoded, kind `.read` (repeated per R5).
    /// - Parameters:
    ///   - refreshToken: the token to revoke.
    ///   - budget: the operation's budget.
    ///   - dpopKey: the grant's DPoP key, for providers that want a proof with a bound token.
    /// - Returns: whether the provider confirmed with a 200. Failures are logged, not thrown.
    @discardableResult
    public func revoke(refreshToken: String, budget: OperationBudget, dpopKey: DPoPKey? = nil) async -> Bool {
        var form = FormBody()
        form.append("token", refreshToken)
        form.append("token_type_hint", "refresh_token")
        form.append("client_id", clientID)
        var request = HTTPRequest(method: .post, url: url, body: form.encoded)
        request.headers.add("Content-Type", FormBody.contentType)
        request.headers.add("Accept", "application/json")
        do {
            let response = try await sender.send(request, kind: .read, budget: budget, dpopKey: dpopKey)
            if response.status == 200 { return true }
            let code = OAuthErrorResponse(body: response.body)?.description ?? "no OAuth error body"
            sender.environment.log.record(VersolaLogEvent(.warning, "revocation answered \(response.status): \(code)"))
        } catch {
            sender.environment.log.record(VersolaLogEvent(.warning, "revocation failed: \(error)"))
        }
        return false
    }
}
