import VersolaHTTP
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
package struct RevocationEndpoint: Sendable {
    /// The revocation endpoint URL.
    public let url: URL
    /// How the client authenticates (its `client_id`, and an installed app's secret, A17).
    let client: ClientAuthentication
    private let sender: EndpointSender

    /// The client's `client_id`.
    public var clientID: String { client.clientID }

    /// Creates the endpoint for a public client.
    public init(url: URL, clientID: String, sender: EndpointSender) {
        self.init(url: url, client: .none(clientID: clientID), sender: sender)
    }

    /// Creates the endpoint for a client that authenticates as `client` says.
    init(url: URL, client: ClientAuthentication, sender: EndpointSender) {
        self.url = url
        self.client = client
        self.sender = sender
    }

    /// How a revocation attempt ended.
    public enum Outcome: Sendable, Hashable {
        /// The provider confirmed with a 200.
        case confirmed
        /// The provider answered 401: it wants the request authenticated, and no access token
        /// was given to authenticate it with.
        case authenticationRequired
        /// Anything else: refused, or nothing usable answered (logged).
        case unconfirmed
    }

    /// Asks the provider to revoke a refresh token: `token`, `token_type_hint=refresh_token`
    /// and `client_id`, form-encoded, kind `.read` (repeated per R5).
    /// - Parameters:
    ///   - refreshToken: the token to revoke.
    ///   - budget: the operation's budget.
    ///   - dpopKey: the grant's DPoP key, for providers that want a proof with a bound token.
    ///   - accessToken: the grant's access token, sent (as `Authorization`, with a proof when
    ///     DPoP-bound) only when the provider answers 401 to the plain RFC 7009 request.
    /// - Returns: whether the provider confirmed with a 200. Failures are logged, not thrown.
    @discardableResult
    public func revoke(
        refreshToken: String, budget: OperationBudget, dpopKey: DPoPKey? = nil, accessToken: String? = nil
    ) async -> Bool {
        await attempt(refreshToken: refreshToken, budget: budget, dpopKey: dpopKey, accessToken: accessToken) == .confirmed
    }

    /// Like ``revoke(refreshToken:budget:dpopKey:accessToken:)``, saying why it was not confirmed.
    ///
    /// A public client has no credentials, so the request first goes without authentication
    /// (RFC 7009 §2.1). Provider quirk (glewlwyd): its revocation endpoint accepts only
    /// authenticated requests, and for a public client that means an access token
    /// (`revocation_endpoint_auth_methods_supported` lists `bearer`). So a 401 is answered once
    /// more with `accessToken` when one is given; without one the outcome is
    /// ``Outcome/authenticationRequired``.
    public func attempt(
        refreshToken: String, budget: OperationBudget, dpopKey: DPoPKey? = nil, accessToken: String? = nil
    ) async -> Outcome {
        await attempt(token: refreshToken, hint: "refresh_token", budget: budget, dpopKey: dpopKey, accessToken: accessToken)
    }

    /// Asks the provider to revoke the access token of a grant that has no refresh token (P13),
    /// with `token_type_hint=access_token`; a provider that wants the request authenticated
    /// gets the token itself as its credential.
    public func attempt(accessToken: String, budget: OperationBudget, dpopKey: DPoPKey? = nil) async -> Outcome {
        await attempt(token: accessToken, hint: "access_token", budget: budget, dpopKey: dpopKey, accessToken: accessToken)
    }

    private func attempt(
        token: String, hint: String, budget: OperationBudget, dpopKey: DPoPKey?, accessToken: String?
    ) async -> Outcome {
        var form = FormBody()
        form.append("token", token)
        form.append("token_type_hint", hint)
        let request = client.request(to: url, form: form)
        let log = sender.environment.log
        do {
            var response = try await sender.send(request, kind: .read, budget: budget, dpopKey: dpopKey)
            if response.status == 401 {
                guard let accessToken, !accessToken.isEmpty else {
                    log.record(VersolaLogEvent(.warning, "revocation answered 401: the provider wants it authenticated"))
                    return .authenticationRequired
                }
                log.record(VersolaLogEvent(.info, "revocation answered 401; sending it again with the access token"))
                response = try await sender.send(
                    request, kind: .read, budget: budget, accessToken: accessToken, dpopKey: dpopKey)
            }
            if response.status == 200 { return .confirmed }
            let code = OAuthErrorResponse(body: response.body)?.providerError?.description ?? "no OAuth error body"
            log.record(VersolaLogEvent(.warning, "revocation answered \(response.status): \(code)"))
        } catch {
            log.record(VersolaLogEvent(.warning, "revocation failed: \(error)"))
        }
        return .unconfirmed
    }
}
