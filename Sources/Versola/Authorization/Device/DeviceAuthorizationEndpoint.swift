import VersolaHTTP
import Foundation
import VersolaJOSE

/// The provider's device authorization endpoint (RFC 8628 §3.1, §3.2): where a device flow
/// login asks for a device code and the user code the person enters elsewhere (A14).
///
/// The request carries `client_id` and `scope`; with a DPoP key it carries a proof (nonce
/// demands and proof refusals retried once, as at the token endpoint, R3) and `dpop_jkt`, the
/// key's thumbprint, so a provider that binds device codes to keys (as glewlwyd does) binds
/// this one. It is sent with kind `.read` (R5): a repeated request only makes another code,
/// and the unused one expires.
///
/// ```swift
/// let endpoint = DeviceAuthorizationEndpoint(url: url, clientID: "cli", sender: sender)
/// let pending = try await endpoint.request(scope: "openid", issuer: issuer, budget: budget)
/// ```
package struct DeviceAuthorizationEndpoint: Sendable {
    /// The endpoint URL.
    public let url: URL
    /// How the client authenticates (its `client_id`, and an installed app's secret, A17).
    let client: ClientAuthentication
    private let sender: EndpointSender

    /// The client's `client_id`.
    public var clientID: String { client.clientID }

    /// Creates an endpoint from its URL, for a public client.
    public init(url: URL, clientID: String, sender: EndpointSender) {
        self.init(url: url, client: .none(clientID: clientID), sender: sender)
    }

    /// Creates an endpoint for a client that authenticates as `client` says.
    init(url: URL, client: ClientAuthentication, sender: EndpointSender) {
        self.url = url
        self.client = client
        self.sender = sender
    }

    /// Asks for a device code.
    /// - Parameters:
    ///   - scope: the scope to request (space-separated, `openid` included).
    ///   - issuer: the issuer, recorded in the result.
    ///   - budget: the operation's budget.
    ///   - dpopKey: the key the tokens are to be bound to; the request then carries a proof.
    /// - Returns: the pending authorization, `createdAt` now on the engine's clock.
    /// - Throws: the OAuth error mapping for error answers (`invalid_client` →
    ///   `.configuration(.providerUnsupported)`, …); `.recoverable(.server)` for a 2xx that
    ///   lacks `device_code`, `user_code`, `verification_uri` or `expires_in`.
    public func request(scope: String, issuer: String, budget: OperationBudget, dpopKey: DPoPKey? = nil)
        async throws(VersolaError) -> PendingDeviceAuthorization
    {
        var form = FormBody()
        form.append("scope", scope)
        if let dpopKey { form.append("dpop_jkt", dpopKey.thumbprint) }
        let request = client.request(to: url, form: form)
        let response = try await sender.send(request, kind: .read, budget: budget, dpopKey: dpopKey)
        guard response.isSuccess else {
            let said = OAuthErrorResponse(body: response.body)?.providerError?.description ?? "no OAuth error body"
            sender.environment.log.record(
                VersolaLogEvent(.warning, "device authorization endpoint answered \(response.status): \(said)"))
            throw OAuthErrorResponse.versolaError(for: response, budget: budget)
        }
        let now = sender.environment.clock.wallClockNow
        let answer = try Self.read(response, budget: budget)
        return PendingDeviceAuthorization(
            deviceCode: answer.deviceCode, userCode: answer.userCode, verificationURI: answer.verificationURI,
            verificationURIComplete: answer.verificationURIComplete, interval: answer.interval,
            expiresAt: now.addingTimeInterval(TimeInterval(answer.expiresIn)), issuer: issuer, clientID: clientID,
            scope: scope, dpopThumbprint: dpopKey?.thumbprint, createdAt: now)
    }

    /// The longest a device code is waited for, in seconds, whatever `expires_in` says (RFC
    /// 8628's example is 1800 s; providers use 300 to 1800).
    static let longestLifetime: Int64 = 3600

    /// The members of a device authorization answer (RFC 8628 §3.2).
    struct Answer: Equatable {
        var deviceCode: String
        var userCode: String
        var verificationURI: String
        var verificationURIComplete: String?
        var expiresIn: Int64
        var interval: Int
    }

    /// Reads a 2xx answer. `verification_url` is read when `verification_uri` is absent (the
    /// name in drafts before RFC 8628, still sent by some providers). An `interval` of 0 is read
    /// as 1 second, so that polling never spins; a missing one is 5 seconds. An `expires_in`
    /// above ``longestLifetime`` is read as that.
    static func read(_ response: HTTPResponse, budget: OperationBudget) throws(VersolaError) -> Answer {
        func unusable(_ reason: String) -> VersolaError {
            .recoverable(
                .server(
                    ServerFailure(
                        status: response.status, failedRequests: budget.failedRequests, elapsed: budget.elapsed,
                        errorDescription: "device authorization response \(reason)")))
        }
        guard let json = try? JSONValue(parsing: response.body), case .object(let object) = json else {
            throw unusable("is not a JSON object")
        }
        func required(_ name: String) throws(VersolaError) -> String {
            guard let text = object[name]?.string, !text.isEmpty else { throw unusable("has no \(name)") }
            return text
        }
        let verificationURI: String
        if let uri = object["verification_uri"]?.string, !uri.isEmpty {
            verificationURI = uri
        } else {
            verificationURI = try required("verification_url")
        }
        var complete: String?
        if let value = object["verification_uri_complete"], !value.isNull {
            guard let text = value.string else { throw unusable("has a verification_uri_complete that is not a string") }
            complete = text.isEmpty ? nil : text
        }
        guard let expiresValue = object["expires_in"], let offered = TokenResponse.seconds(expiresValue), offered > 0
        else { throw unusable("has no positive expires_in") }
        // A provider's word is not a reason to wait for years: at most an hour.
        let expiresIn = min(offered, longestLifetime)
        var interval = PendingDeviceAuthorization.defaultInterval
        if let value = object["interval"], !value.isNull {
            guard let seconds = TokenResponse.seconds(value), seconds <= 3600 else {
                throw unusable("has an interval that is not 0…3600 seconds")
            }
            interval = max(1, Int(seconds))
        }
        return Answer(
            deviceCode: try required("device_code"), userCode: try required("user_code"),
            verificationURI: verificationURI, verificationURIComplete: complete, expiresIn: expiresIn, interval: interval)
    }
}
