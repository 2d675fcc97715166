import Foundation
import VersolaCrypto
import VersolaHTTP
import VersolaJOSE

/// The device authorization grant (RFC 8628): the device authorization endpoint, the
/// verification page where the person approves or denies a user code, and the token
/// endpoint's `device_code` grant.
///
/// The person approves at `GET /device?user_code=…` (the `verification_uri_complete`): with
/// ``TestProviderConfiguration/autoLogin`` that alone approves; otherwise the page is the
/// sign-in form, and its Sign in / Cancel buttons approve or deny (what ``HeadlessUserAgent``
/// presses). Polls get `authorization_pending` until then, `slow_down` when they come sooner
/// than ``TestProviderConfiguration/deviceEnforcedInterval`` after the previous one (or the
/// request), `access_denied` after a denial and `expired_token` after the lifetime. A device
/// request made with a DPoP proof (or `dpop_jkt`) binds the code: polls must carry a proof by
/// that key, and the tokens are DPoP-bound. Faults armed on `.token` apply to polls (a 503
/// with `Retry-After`, an `oauthError` code), on `.deviceAuthorization` to the request.
extension TestProvider {
    /// The `grant_type` of a device-code poll.
    static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// The characters of a user code: consonants only, so no word and no look-alike digit.
    private static let userCodeAlphabet = Array("BCDFGHJKLMNPQRSTVWXZ")

    // MARK: The device authorization endpoint

    func deviceAuthorization(_ request: HTTPServerRequest, url: String) -> HTTPServerAction {
        guard request.method == "POST" else { return .respond(HTTPServerResponse(status: 405, headers: ["Allow": "POST"])) }
        let form = Dictionary(request.formItems.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard let client = authenticatedClient(request, form: form) else {
            return oauthError("invalid_client", "unknown client or wrong secret", status: 401)
        }
        var thumbprint: String?
        switch checkAuthorizationServerProof(request, url: url, endpoint: .deviceAuthorization, required: configuration.requireDPoP) {
        case .rejected(let action): return action
        case .accepted(let jkt): thumbprint = jkt
        case .absent: break
        }
        if let fault = takeFault(.deviceAuthorization, where: { if case .oauthError = $0 { true } else { false } }),
            case .oauthError(let code) = fault
        {
            return oauthError(code, "the provider was told to refuse")
        }
        if let bound = form["dpop_jkt"] {
            if let thumbprint, thumbprint != bound { return oauthError("invalid_request", "dpop_jkt does not match the DPoP proof") }
            thumbprint = bound
        }
        let scope = form["scope"] ?? ""
        guard scope.split(separator: " ").contains("openid") else {
            return oauthError("invalid_scope", "scope must include openid")
        }
        let deviceCode = opaqueValue()
        let userCode = newUserCode()
        let lifetime = configuration.deviceCodeLifetime
        deviceCodes[deviceCode] = DeviceCodeRecord(
            clientID: client.id, scope: scope, userCode: userCode, dpopThumbprint: thumbprint, issuedAt: now(),
            expiresAt: now() + TimeInterval(lifetime), family: opaqueValue())
        let page = self.url(of: .deviceVerification)
        var answer: JSONObject = [
            "device_code": .string(deviceCode), "user_code": .string(userCode), "verification_uri": .string(page),
            "expires_in": .integer(Int64(lifetime)),
        ]
        if configuration.deviceVerificationURIComplete {
            answer["verification_uri_complete"] = .string(FormEncoding.appending([("user_code", userCode)], to: page))
        }
        if let interval = configuration.deviceInterval { answer["interval"] = .integer(Int64(interval)) }
        return jsonAnswer(.object(answer), headers: nonceHeader(for: .deviceAuthorization))
    }

    /// `XXXX-XXXX` from ``userCodeAlphabet``.
    private func newUserCode() -> String {
        let letters = SecureRandom.bytes(8).map { Self.userCodeAlphabet[Int($0) % Self.userCodeAlphabet.count] }
        return String(letters[0..<4]) + "-" + String(letters[4..<8])
    }

    /// The device code of a user code as a person types it (any case, with or without the dash),
    /// while it can still be answered.
    private func pendingDeviceCode(forUserCode typed: String) -> String? {
        func normalised(_ text: String) -> String { text.uppercased().filter { $0 != "-" && $0 != " " } }
        let wanted = normalised(typed)
        return deviceCodes.first { $0.value.status == .pending && normalised($0.value.userCode) == wanted && $0.value.expiresAt > now() }?
            .key
    }

    // MARK: The verification page

    func deviceVerification(_ request: HTTPServerRequest) -> HTTPServerAction {
        if request.method == "POST" { return submitDeviceVerification(request) }
        guard request.method == "GET" else { return .respond(HTTPServerResponse(status: 405, headers: ["Allow": "GET, POST"])) }
        guard let typed = request.queryItems.first(where: { $0.name == "user_code" })?.value, !typed.isEmpty else {
            return .respond(.html(LoginPage.userCodeForm(action: url(of: .deviceVerification))))
        }
        guard let deviceCode = pendingDeviceCode(forUserCode: typed) else {
            return .respond(.html(LoginPage.message("This code is unknown, used or expired. Start again on your device."), status: 400))
        }
        if configuration.autoLogin {
            deviceCodes[deviceCode]?.status = .approved(authTime: now())
            return .respond(.html(LoginPage.message("Signed in. You can return to your device.")))
        }
        let ticket = opaqueValue()
        deviceTickets[ticket] = deviceCode
        return .respond(.html(LoginPage.form(ticket: ticket, action: url(of: .deviceVerification), message: nil)))
    }

    private func submitDeviceVerification(_ request: HTTPServerRequest) -> HTTPServerAction {
        guard let ticket = request.formValue("ticket"), let deviceCode = deviceTickets[ticket],
            deviceCodes[deviceCode]?.status == .pending
        else {
            return .respond(.html(LoginPage.message("This sign-in page has expired. Start again on your device."), status: 400))
        }
        if request.formValue("decision") == "deny" {
            deviceTickets[ticket] = nil
            deviceCodes[deviceCode]?.status = .denied
            return .respond(.html(LoginPage.message("Sign-in refused. You can return to your device.")))
        }
        let user = configuration.user
        guard request.formValue("username") == user.username, request.formValue("password") == user.password else {
            return .respond(
                .html(LoginPage.form(ticket: ticket, action: url(of: .deviceVerification), message: "Wrong user name or password.")))
        }
        deviceTickets[ticket] = nil
        deviceCodes[deviceCode]?.status = .approved(authTime: now())
        return .respond(.html(LoginPage.message("Signed in. You can return to your device.")))
    }

    // MARK: The token endpoint's device_code grant

    func deviceCodeGrant(_ request: HTTPServerRequest, form: [String: String], client: TestClient, url: String)
        -> HTTPServerAction
    {
        guard let deviceCode = form["device_code"], var record = deviceCodes[deviceCode] else {
            return oauthError("invalid_grant", "unknown device code")
        }
        var thumbprint: String?
        let required = record.dpopThumbprint != nil || configuration.requireDPoP
        switch checkAuthorizationServerProof(request, url: url, endpoint: .token, required: required) {
        case .rejected(let action): return action
        case .accepted(let jkt): thumbprint = jkt
        case .absent: break
        }
        if let refusal = armedOAuthError() { return refusal }
        guard record.clientID == client.id else { return oauthError("invalid_grant", "device code was issued to another client") }
        if let bound = record.dpopThumbprint, bound != thumbprint {
            return oauthError("invalid_grant", "the DPoP key differs from the one the device request was made with")
        }
        let moment = now()
        guard moment < record.expiresAt else { return oauthError("expired_token", "the device code expired") }
        let spacing = TimeInterval(configuration.deviceEnforcedInterval ?? configuration.deviceInterval ?? 5)
        let previous = record.lastPoll ?? record.issuedAt
        record.lastPoll = moment
        deviceCodes[deviceCode] = record
        if moment.timeIntervalSince(previous) < spacing {
            return oauthError("slow_down", "polled \(moment.timeIntervalSince(previous)) s after the previous request")
        }
        switch record.status {
        case .pending: return oauthError("authorization_pending", "the user has not answered yet")
        case .denied: return oauthError("access_denied", "the user refused the request")
        case .used: return oauthError("invalid_grant", "the device code was already used")
        case .approved(let authTime):
            deviceCodes[deviceCode]?.status = .used
            return mintTokens(
                client: client, scope: record.scope, thumbprint: record.dpopThumbprint ?? thumbprint, acr: nil,
                authTime: authTime, nonce: nil, family: record.family, endpoint: .token, alwaysIDToken: true)
        }
    }
}
