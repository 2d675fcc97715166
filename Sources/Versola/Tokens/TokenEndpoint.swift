import Foundation

/// The provider's token endpoint (RFC 6749 §3.2): the authorization-code exchange and the
/// refresh-token grant, as a public client (`client_id` in the body, no secret).
///
/// Every request goes through the ``EndpointSender`` (which adds DPoP when the grant uses it).
/// The exchange is sent with kind `.codeExchange` and is never repeated (R4, A6); the refresh
/// with kind `.refresh`, repeated only when provably unprocessed (R6). Error answers are read
/// through the one OAuth error mapping (E6, E9).
///
/// ```swift
/// let endpoint = TokenEndpoint(metadata: metadata, configuration: configuration, sender: sender)
/// let tokens = try await endpoint.exchangeCode(code: code, verifier: pkce.verifier, redirectURI: redirect, budget: budget)
/// ```
public struct TokenEndpoint: Sendable {
    /// The token endpoint URL.
    public let url: URL
    /// The public client's `client_id`.
    public let clientID: String
    /// The provider workarounds applied to the answers.
    public let quirks: ProviderQuirks
    private let sender: EndpointSender

    /// Creates an endpoint from its URL.
    public init(url: URL, clientID: String, sender: EndpointSender, quirks: ProviderQuirks = ProviderQuirks()) {
        self.url = url
        self.clientID = clientID
        self.sender = sender
        self.quirks = quirks
    }

    /// Creates the endpoint the provider advertises, for the configured client.
    public init(metadata: ProviderMetadata, configuration: ClientConfiguration, sender: EndpointSender) {
        self.init(
            url: metadata.tokenEndpoint, clientID: configuration.clientID, sender: sender,
            quirks: configuration.providerQuirks)
    }

    /// Exchanges an authorization code (RFC 6749 §4.1.3, RFC 7636 §4.5). Sent once, never
    /// repeated, not even after a dropped answer (R4).
    /// - Parameters:
    ///   - code: the code from the redirect.
    ///   - verifier: the PKCE code verifier.
    ///   - redirectURI: the redirect URI exactly as sent in the authorization request (A6).
    ///   - budget: the operation's budget.
    ///   - extra: further fields appended after the standard ones (e.g. `resource`).
    ///   - dpopKey: the key the authorization was bound to (D4); the request then carries a
    ///     proof, and its nonce and proof retries (R3) still apply.
    /// - Returns: the tokens; the ID token is not validated here (see ``IDTokenValidator``).
    /// - Throws: the OAuth error mapping for error answers (`invalid_grant` →
    ///   `.reauthenticate(.grantRejected)`); `.recoverable` when nothing usable answered.
    public func exchangeCode(
        code: String, verifier: String, redirectURI: String, budget: OperationBudget, extra: [FormBody.Field] = [],
        dpopKey: DPoPKey? = nil
    ) async throws(VersolaError) -> TokenResponse {
        var form = FormBody()
        form.append("grant_type", "authorization_code")
        form.append("code", code)
        form.append("redirect_uri", redirectURI)
        form.append("code_verifier", verifier)
        form.append("client_id", clientID)
        form.fields += extra
        return try await post(form, kind: .codeExchange, budget: budget, dpopKey: dpopKey)
    }

    /// Uses a refresh token (RFC 6749 §6).
    /// - Parameters:
    ///   - refreshToken: the refresh token.
    ///   - scope: a narrower scope to ask for, or nil for the original one.
    ///   - budget: the operation's budget.
    ///   - dpopKey: the grant's DPoP key; the request then carries a proof.
    /// - Returns: the tokens, with a rotated refresh token when the provider rotates.
    /// - Throws: the OAuth error mapping for error answers (`invalid_grant` →
    ///   `.reauthenticate(.grantRejected)`, and so are the refusals in the shapes
    ///   ``ProviderQuirks`` names while they are on); `.recoverable` when nothing usable
    ///   answered, any other 400 without an OAuth error body included.
    public func refresh(
        refreshToken: String, scope: String? = nil, budget: OperationBudget, dpopKey: DPoPKey? = nil
    ) async throws(VersolaError) -> TokenResponse {
        var form = FormBody()
        form.append("grant_type", "refresh_token")
        form.append("refresh_token", refreshToken)
        form.append("client_id", clientID)
        if let scope { form.append("scope", scope) }
        return try await post(form, kind: .refresh, budget: budget, dpopKey: dpopKey)
    }

    private func post(_ form: FormBody, kind: OperationKind, budget: OperationBudget, dpopKey: DPoPKey?)
        async throws(VersolaError) -> TokenResponse
    {
        var request = HTTPRequest(method: .post, url: url, body: form.encoded)
        request.headers.add("Content-Type", FormBody.contentType)
        request.headers.add("Accept", "application/json")
        let response = try await sender.send(request, kind: kind, budget: budget, dpopKey: dpopKey)
        guard response.isSuccess else {
            let oauthError = OAuthErrorResponse(body: response.body)
            // Logged cleaned: the error it becomes may drop the description (E14).
            let code = oauthError?.providerError?.description ?? "no OAuth error body"
            sender.environment.log.record(
                VersolaLogEvent(.warning, "token endpoint (\(kind.rawValue)) answered \(response.status): \(code)"))
            if kind == .refresh, quirks.refusesRefreshToken(response, error: oauthError) {
                throw .reauthenticate(.grantRejected)
            }
            throw OAuthErrorResponse.versolaError(for: response, budget: budget)
        }
        return try TokenResponse(response, budget: budget)
    }
}
