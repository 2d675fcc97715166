import VersolaHTTP
import Foundation

/// The provider's token endpoint (RFC 6749 §3.2): the authorization-code exchange, the
/// refresh-token grant and the device-code poll (RFC 8628 §3.4), as a public client
/// (`client_id` in the body, no secret).
///
/// Every request goes through the ``EndpointSender`` (which adds DPoP when the grant uses it).
/// The exchange is sent with kind `.codeExchange` and is never repeated (R4, A6); the refresh
/// with kind `.refresh`, repeated only when provably unprocessed (R6); a device-code poll like
/// a refresh (a poll the provider processed may have spent the approval). Error answers are
/// read through the one OAuth error mapping (E6, E9).
///
/// ```swift
/// let endpoint = TokenEndpoint(metadata: metadata, configuration: configuration, sender: sender)
/// let tokens = try await endpoint.exchangeCode(code: code, verifier: pkce.verifier, redirectURI: redirect, budget: budget)
/// ```
package struct TokenEndpoint: Sendable {
    /// The token endpoint URL.
    public let url: URL
    /// How the client authenticates (its `client_id`, and an installed app's secret, A17).
    let client: ClientAuthentication
    /// The provider workarounds applied to the answers.
    public let quirks: ProviderQuirks
    /// The resource every token request names (RFC 8707, A19), when the client is bound to one.
    var resource: String?
    private let sender: EndpointSender

    /// The client's `client_id`.
    public var clientID: String { client.clientID }

    /// Creates an endpoint from its URL, for a public client.
    public init(url: URL, clientID: String, sender: EndpointSender, quirks: ProviderQuirks = ProviderQuirks()) {
        self.init(url: url, client: .none(clientID: clientID), sender: sender, quirks: quirks)
    }

    /// Creates an endpoint for a client that authenticates as `client` says.
    init(url: URL, client: ClientAuthentication, sender: EndpointSender, quirks: ProviderQuirks) {
        self.url = url
        self.client = client
        self.sender = sender
        self.quirks = quirks
    }

    /// Creates the endpoint the provider advertises (or the configuration overrides), for the
    /// configured client: with its secret when it has one (A17).
    public init(metadata: ProviderMetadata, configuration: ClientConfiguration, sender: EndpointSender) {
        self.init(
            url: metadata.tokenEndpoint, client: ClientAuthentication(configuration: configuration, metadata: metadata),
            sender: sender, quirks: configuration.providerQuirks)
        resource = configuration.resource
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
        return try await post(form, trailing: extra, kind: .codeExchange, budget: budget, dpopKey: dpopKey)
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
        if let scope { form.append("scope", scope) }
        return try answer(
            try await send(form, kind: .refresh, budget: budget, dpopKey: dpopKey), label: "refresh", budget: budget,
            spendsRefreshToken: true)
    }

    /// The `grant_type` of a device-code poll (RFC 8628 §3.4).
    public static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Polls once for the tokens of a device authorization (RFC 8628 §3.4, A14). The retry
    /// rules of a refresh apply to this one poll (R6, R8: a 503 with `Retry-After` is waited
    /// out within the budget, not read as an answer); the caller waits the interval between polls.
    /// - Parameters:
    ///   - deviceCode: the device code (secret).
    ///   - budget: this poll's budget.
    ///   - dpopKey: the key the device request was made with; the poll then carries a proof.
    /// - Returns: the tokens once the person approved; ``DevicePollAnswer/pending`` for
    ///   `authorization_pending`; ``DevicePollAnswer/slowDown`` for `slow_down`.
    /// - Throws: the OAuth error mapping for the other error answers: `access_denied` →
    ///   `.reauthenticate(.authorizationDenied)`, `expired_token` →
    ///   `.recoverable(.pendingRequestExpired)`, `invalid_grant` → `.reauthenticate(.grantRejected)`.
    public func pollDeviceCode(deviceCode: String, budget: OperationBudget, dpopKey: DPoPKey? = nil)
        async throws(VersolaError) -> DevicePollAnswer
    {
        var form = FormBody()
        form.append("grant_type", Self.deviceCodeGrantType)
        form.append("device_code", deviceCode)
        let response = try await send(form, kind: .refresh, budget: budget, dpopKey: dpopKey)
        if !response.isSuccess, let code = OAuthErrorResponse(body: response.body)?.code {
            switch code {
            case .authorizationPending: return .pending
            case .slowDown: return .slowDown
            default: break
            }
        }
        return .tokens(try answer(response, label: "device code poll", budget: budget))
    }

    private func send(
        _ form: FormBody, trailing: [FormBody.Field] = [], kind: OperationKind, budget: OperationBudget, dpopKey: DPoPKey?
    ) async throws(VersolaError) -> HTTPResponse {
        var trailing = trailing
        if let resource, !trailing.contains(where: { $0.name == "resource" }) {
            trailing.append(FormBody.Field(name: "resource", value: resource))
        }
        return try await sender.send(
            client.request(to: url, form: form, trailing: trailing), kind: kind, budget: budget, dpopKey: dpopKey)
    }

    private func post(
        _ form: FormBody, trailing: [FormBody.Field], kind: OperationKind, budget: OperationBudget, dpopKey: DPoPKey?
    ) async throws(VersolaError) -> TokenResponse {
        try answer(
            try await send(form, trailing: trailing, kind: kind, budget: budget, dpopKey: dpopKey), label: kind.rawValue,
            budget: budget)
    }

    /// Reads a token answer: the tokens of a 2xx, else the mapped error (logged, cleaned).
    /// `spendsRefreshToken` applies the quirks that read a refused refresh token (only for
    /// the refresh grant).
    private func answer(
        _ response: HTTPResponse, label: String, budget: OperationBudget, spendsRefreshToken: Bool = false
    ) throws(VersolaError) -> TokenResponse {
        // A provider may report a token error with status 200 (GitHub's OAuth apps do): an
        // error body without an access token is an error whatever the status.
        let errorInSuccess = response.isSuccess && TokenResponse.isErrorAnswer(response)
        guard response.isSuccess, !errorInSuccess else {
            let oauthError = OAuthErrorResponse(json: TokenResponse.document(of: response) ?? .null)
            // Logged cleaned: the error it becomes may drop the description (E14).
            let code = oauthError?.providerError?.description ?? "no OAuth error body"
            sender.environment.log.record(
                VersolaLogEvent(.warning, "token endpoint (\(label)) answered \(response.status): \(code)"))
            if spendsRefreshToken, quirks.refusesRefreshToken(response, error: oauthError) {
                throw .reauthenticate(.grantRejected)
            }
            if let oauthError {
                throw clientAuthenticationHint(
                    oauthError.versolaError(
                        status: response.status, failedRequests: budget.failedRequests, elapsed: budget.elapsed),
                    code: oauthError.code)
            }
            throw OAuthErrorResponse.versolaError(for: response, budget: budget)
        }
        return try TokenResponse(response, budget: budget)
    }

    /// A refusal of the client itself, when no secret was sent, says where a secret would go:
    /// installed-app clients of some providers (Google's, Dex's static ones) must send theirs (A17).
    private func clientAuthenticationHint(_ error: VersolaError, code: OAuthErrorCode) -> VersolaError {
        guard !client.sendsSecret, code == .invalidClient || code == .unauthorizedClient || code == .invalidRequest,
            case .configuration(let detail) = error
        else { return error }
        let hint =
            "; if the provider issued this client a secret (an installed or desktop app's), "
            + "give it with --client-secret-file (ClientConfiguration.clientSecret)"
        switch detail {
        case .providerUnsupported(let reason, let provider):
            return .configuration(.providerUnsupported(reason + hint, provider: provider))
        case .invalidConfiguration(let reason, let provider):
            return .configuration(.invalidConfiguration(reason + hint, provider: provider))
        default:
            return error
        }
    }
}

/// What one device-code poll got (RFC 8628 §3.5).
package enum DevicePollAnswer: Sendable, Hashable {
    /// The person approved: the tokens.
    case tokens(TokenResponse)
    /// `authorization_pending`: not answered yet; poll again after the interval.
    case pending
    /// `slow_down`: poll again, with the interval 5 seconds longer from now on.
    case slowDown
}
