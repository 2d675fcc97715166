import Foundation
import VersolaCrypto
import VersolaHTTP
import VersolaJOSE

extension TestProvider {
    /// Why an authorization request was refused, and whether the redirect URI is trusted
    /// enough to carry the error back (RFC 6749 §4.1.2.1).
    enum AuthorizationRefusal: Error {
        /// Unknown client or redirect URI: shown as a page, never redirected.
        case page(String)
        /// Sent back to the (validated) redirect URI.
        case redirect(code: String, description: String, redirectURI: String, state: String?)
    }

    // MARK: The authorization endpoint

    func authorize(_ request: HTTPServerRequest) -> HTTPServerAction {
        if request.method == "POST" { return submitLogin(request) }
        guard request.method == "GET" else { return .respond(HTTPServerResponse(status: 405, headers: ["Allow": "GET, POST"])) }
        let parameters = Dictionary(request.queryItems.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        let record: AuthorizationRequestRecord
        do {
            record = try authorizationRecord(from: parameters)
        } catch {
            return refusal(error)
        }
        if let fault = takeFault(.authorize, where: { if case .oauthError = $0 { true } else { false } }),
            case .oauthError(let code) = fault
        {
            return redirectError(code, "the provider was told to refuse", record.redirectURI, record.state)
        }
        if configuration.autoLogin {
            return issueCode(for: record)
        }
        if record.prompt == "none" {
            return redirectError("login_required", "no session at the provider", record.redirectURI, record.state)
        }
        let ticket = opaqueValue()
        loginTickets[ticket] = record
        return .respond(.html(LoginPage.form(ticket: ticket, action: url(of: .authorize), message: nil)))
    }

    private func submitLogin(_ request: HTTPServerRequest) -> HTTPServerAction {
        guard let ticket = request.formValue("ticket"), let record = loginTickets[ticket] else {
            return .respond(.html(LoginPage.message("This sign-in page has expired. Start again from your app."), status: 400))
        }
        // Cancel needs no credentials: a user who declines does not type a password first.
        if request.formValue("decision") == "deny" {
            loginTickets[ticket] = nil
            return redirectError("access_denied", "the user denied the request", record.redirectURI, record.state)
        }
        let user = configuration.user
        guard request.formValue("username") == user.username, request.formValue("password") == user.password else {
            return .respond(
                .html(LoginPage.form(ticket: ticket, action: url(of: .authorize), message: "Wrong user name or password.")))
        }
        loginTickets[ticket] = nil
        return issueCode(for: record)
    }

    /// Validates the front-channel parameters, or a `request_uri` from PAR.
    private func authorizationRecord(from parameters: [String: String]) throws(AuthorizationRefusal)
        -> AuthorizationRequestRecord
    {
        guard let client = configuration.client(parameters["client_id"]) else {
            throw .page("Unknown client.")
        }
        if let requestURI = parameters["request_uri"] {
            guard let pushed = pushedRequests.removeValue(forKey: requestURI), pushed.expiresAt > now(),
                pushed.request.clientID == client.id
            else {
                throw .page("The pushed authorization request is unknown, used or expired.")
            }
            return pushed.request
        }
        let record = try validatedRecord(parameters, client: client)
        if configuration.requirePushedAuthorizationRequests {
            throw .redirect(
                code: "invalid_request", description: "pushed authorization requests are required",
                redirectURI: record.redirectURI, state: record.state)
        }
        return record
    }

    /// The checks a strict provider makes of an authorization request (front channel or pushed).
    func validatedRecord(_ parameters: [String: String], client: TestClient, dpopThumbprint: String? = nil)
        throws(AuthorizationRefusal) -> AuthorizationRequestRecord
    {
        guard let redirectURI = parameters["redirect_uri"], redirectAllowed(redirectURI, for: client) else {
            throw .page("The redirect URI is not registered for this client.")
        }
        let state = parameters["state"]
        func refuse(_ code: String, _ description: String) -> AuthorizationRefusal {
            .redirect(code: code, description: description, redirectURI: redirectURI, state: state)
        }
        guard parameters["response_type"] == "code" else {
            throw refuse("unsupported_response_type", "only the code flow is supported")
        }
        let scope = parameters["scope"] ?? ""
        if configuration.requireOpenIDScope, !scope.split(separator: " ").contains("openid") {
            throw refuse("invalid_scope", "scope must include openid")
        }
        for name in configuration.requiredAuthorizationParameters where (parameters[name] ?? "").isEmpty {
            throw refuse("invalid_request", "\(name) is required")
        }
        let (resource, resourceRefusal) = checkedResource(parameters["resource"])
        if let resourceRefusal { throw refuse("invalid_target", resourceRefusal) }
        if configuration.requireConsentForOfflineAccess, scope.split(separator: " ").contains("offline_access"),
            !(parameters["prompt"] ?? "").split(separator: " ").contains("consent")
        {
            throw refuse("invalid_request", "consent in prompt")
        }
        guard let challenge = parameters["code_challenge"] else {
            throw refuse("invalid_request", "PKCE is required")
        }
        guard parameters["code_challenge_method"] == "S256" else {
            throw refuse("invalid_request", "only the S256 code challenge method is accepted")
        }
        guard challenge.utf8.count == 43, (try? Base64URL.decode(challenge))?.count == 32 else {
            throw refuse("invalid_request", "code_challenge is not a base64url SHA-256 value")
        }
        var maxAge: Int?
        if let text = parameters["max_age"] {
            guard let value = Int(text), value >= 0 else { throw refuse("invalid_request", "max_age is not a number") }
            maxAge = value
        }
        let boundThumbprint = parameters["dpop_jkt"]
        if let boundThumbprint, let dpopThumbprint, boundThumbprint != dpopThumbprint {
            throw refuse("invalid_request", "dpop_jkt does not match the DPoP proof")
        }
        return AuthorizationRequestRecord(
            clientID: client.id, redirectURI: redirectURI, scope: scope, state: state, nonce: parameters["nonce"],
            codeChallenge: challenge, dpopThumbprint: boundThumbprint ?? dpopThumbprint,
            acrValues: parameters["acr_values"], maxAge: maxAge, prompt: parameters["prompt"],
            offline: configuration.refreshTokenParameter.map { Self.carries(parameters, $0) } ?? true, resource: resource)
    }

    /// Whether the parameters carry `NAME=VALUE`.
    static func carries(_ parameters: [String: String], _ pair: String) -> Bool {
        let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
        return parts.count == 2 && parameters[parts[0]] == parts[1]
    }

    /// Exact registration, or (when the client allows it) a loopback URI differing only in port.
    func redirectAllowed(_ uri: String, for client: TestClient) -> Bool {
        if client.redirectURIs.contains(uri) { return true }
        if client.allowsPrivateUseRedirects, let path = Self.privateUsePath(uri) {
            return client.redirectURIs.contains { URLComponents(string: $0)?.percentEncodedPath == path }
        }
        guard client.allowsAnyLoopbackPort, let candidate = URLComponents(string: uri), candidate.scheme == "http",
            candidate.host == "127.0.0.1" || candidate.host == "::1" || candidate.host == "[::1]",
            candidate.query == nil, candidate.fragment == nil, candidate.user == nil, candidate.password == nil
        else { return false }
        // Only the port may differ: the path is compared as sent, still percent-encoded.
        return client.redirectURIs.contains { registered in
            guard let allowed = URLComponents(string: registered) else { return false }
            return allowed.scheme == candidate.scheme && allowed.host == candidate.host
                && allowed.percentEncodedPath == candidate.percentEncodedPath
        }
    }

    /// The path of `uri` when it is a private-use scheme redirect: a reverse-domain scheme
    /// (with a dot; not http or https), one slash, no query or fragment.
    static func privateUsePath(_ uri: String) -> String? {
        guard let colon = uri.firstIndex(of: ":") else { return nil }
        let scheme = uri[..<colon]
        let path = String(uri[uri.index(after: colon)...])
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789+-.")
        guard scheme.contains("."), scheme.allSatisfy({ allowed.contains($0) }), scheme.first?.isLetter == true,
            path.hasPrefix("/"), !path.hasPrefix("//"), !path.contains("?"),
            !path.contains("#")
        else { return nil }
        return path
    }

    private func issueCode(for record: AuthorizationRequestRecord) -> HTTPServerAction {
        let code = opaqueValue()
        codes[code] = CodeRecord(request: record, issuedAt: now(), authTime: now(), family: opaqueValue())
        var pairs = [("code", code)]
        if let state = record.state { pairs.append(("state", state)) }
        pairs.append(("iss", takeFault(.authorize, .wrongRedirectIssuer) ? "https://attacker.example" : issuer))
        return .respond(
            HTTPServerResponse(status: 302, headers: ["Location": FormEncoding.appending(pairs, to: record.redirectURI)]))
    }

    private func redirectError(_ code: String, _ description: String, _ redirectURI: String, _ state: String?)
        -> HTTPServerAction
    {
        var pairs = [("error", code), ("error_description", description)]
        if let state { pairs.append(("state", state)) }
        pairs.append(("iss", issuer))
        return .respond(HTTPServerResponse(status: 302, headers: ["Location": FormEncoding.appending(pairs, to: redirectURI)]))
    }

    private func refusal(_ error: AuthorizationRefusal) -> HTTPServerAction {
        switch error {
        case .page(let text): .respond(.html(LoginPage.message(text), status: 400))
        case .redirect(let code, let description, let redirectURI, let state):
            redirectError(code, description, redirectURI, state)
        }
    }

    // MARK: Pushed authorization requests (RFC 9126)

    func pushAuthorizationRequest(_ request: HTTPServerRequest, url: String) -> HTTPServerAction {
        guard request.method == "POST" else { return .respond(HTTPServerResponse(status: 405, headers: ["Allow": "POST"])) }
        let parameters = Dictionary(request.formItems.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        if parameters["request_uri"] != nil {
            return oauthError("invalid_request", "request_uri is not allowed in a pushed request")
        }
        guard let client = configuration.client(parameters["client_id"]) else {
            return oauthError("invalid_client", "unknown client", status: 401)
        }
        var thumbprint: String?
        switch checkAuthorizationServerProof(request, url: url, endpoint: .par, required: false) {
        case .rejected(let action): return action
        case .accepted(let jkt): thumbprint = jkt
        case .absent: break
        }
        if let fault = takeFault(.par, where: { if case .oauthError = $0 { true } else { false } }),
            case .oauthError(let code) = fault
        {
            return oauthError(code, "the provider was told to refuse")
        }
        let record: AuthorizationRequestRecord
        do {
            record = try validatedRecord(parameters, client: client, dpopThumbprint: thumbprint)
        } catch {
            switch error {
            case .page(let text): return oauthError("invalid_request", text)
            case .redirect(let code, let description, _, _): return oauthError(code, description)
            }
        }
        let requestURI = "urn:ietf:params:oauth:request_uri:" + opaqueValue()
        let lifetime = configuration.pushedRequestLifetime
        pushedRequests[requestURI] = PushedRequestRecord(request: record, expiresAt: now() + TimeInterval(lifetime))
        return jsonAnswer(
            ["request_uri": .string(requestURI), "expires_in": .integer(Int64(lifetime))], status: 201,
            headers: nonceHeader(for: .par))
    }
}
