import Foundation
import VersolaHTTP
import VersolaJOSE

extension TestProvider {
    /// The outcome of authenticating a request to a protected endpoint.
    enum ResourceAccess {
        case granted(AccessTokenRecord)
        case refused(HTTPServerAction)
    }

    /// Authenticates `Authorization: Bearer|DPoP <token>` (RFC 6750, RFC 9449 §7), checking
    /// the proof, its `ath` and the key binding for DPoP-bound tokens. Errors are `401` with
    /// a `WWW-Authenticate` challenge (RFC 9449 §7.1).
    func authenticate(_ request: HTTPServerRequest, url: String, endpoint: TestEndpoint) -> ResourceAccess {
        guard let authorization = request.headers["Authorization"],
            let space = authorization.firstIndex(of: " ")
        else {
            return .refused(challenge(scheme: "Bearer", error: nil, description: nil, endpoint: endpoint))
        }
        let scheme = authorization[..<space].lowercased()
        let token = authorization[authorization.index(after: space)...].trimmingCharacters(in: .whitespaces)
        guard let record = accessTokens[token], record.expiresAt > now(), !revokedFamilies.contains(record.family)
        else {
            let challengeScheme = scheme == "dpop" ? "DPoP" : "Bearer"
            return .refused(
                challenge(scheme: challengeScheme, error: "invalid_token", description: "unknown or expired", endpoint: endpoint))
        }
        guard let bound = record.dpopThumbprint else {
            guard scheme == "bearer" else {
                return .refused(
                    challenge(scheme: "Bearer", error: "invalid_token", description: "not a DPoP-bound token", endpoint: endpoint))
            }
            return .granted(record)
        }
        guard scheme == "dpop" else {
            return .refused(
                challenge(scheme: "DPoP", error: "invalid_token", description: "DPoP-bound token sent as Bearer", endpoint: endpoint))
        }
        if takeFault(endpoint, .demandNonceForever) {
            if endpoint == .resource { rotateNonce(&resourceServerNonces) } else { rotateNonce(&authorizationServerNonces) }
            return .refused(
                challenge(scheme: "DPoP", error: "use_dpop_nonce", description: "a fresh nonce is required", endpoint: endpoint, nonce: true))
        }
        if takeFault(endpoint, .invalidDPoPProof) {
            return .refused(challenge(scheme: "DPoP", error: "invalid_dpop_proof", description: "told to reject", endpoint: endpoint))
        }
        switch inspectProof(
            fields: request.headers.values("DPoP"), method: request.method, url: url, accessToken: token,
            nonces: acceptedNonces(at: endpoint))
        {
        case .failure(.nonceRequired):
            return .refused(
                challenge(scheme: "DPoP", error: "use_dpop_nonce", description: "nonce required", endpoint: endpoint, nonce: true))
        case .failure(.missing):
            return .refused(challenge(scheme: "DPoP", error: "invalid_dpop_proof", description: "proof missing", endpoint: endpoint))
        case .failure(.invalid(let reason)):
            return .refused(challenge(scheme: "DPoP", error: "invalid_dpop_proof", description: reason, endpoint: endpoint))
        case .success(let thumbprint):
            guard thumbprint == bound else {
                return .refused(
                    challenge(scheme: "DPoP", error: "invalid_token", description: "proof key does not match", endpoint: endpoint))
            }
            return .granted(record)
        }
    }

    /// The DPoP nonces a proof sent to `endpoint` may carry (one is made when none is current);
    /// empty when that endpoint requires none.
    private func acceptedNonces(at endpoint: TestEndpoint) -> Set<String> {
        let nonceRequired = endpoint == .resource ? configuration.resourceRequiresDPoPNonce : configuration.requireDPoPNonce
        guard nonceRequired else { return [] }
        if endpoint == .resource {
            if resourceServerNonces.isEmpty { rotateNonce(&resourceServerNonces) }
            return Set(resourceServerNonces)
        }
        if authorizationServerNonces.isEmpty { rotateNonce(&authorizationServerNonces) }
        return Set(authorizationServerNonces)
    }

    /// An armed ``TestFault/bearerError(code:description:)``: the RFC 6750 §3.1 answer for a
    /// token that was otherwise accepted.
    func bearerRefusal(for record: AccessTokenRecord, endpoint: TestEndpoint) -> HTTPServerAction? {
        guard let fault = takeFault(endpoint, where: { if case .bearerError = $0 { true } else { false } }),
            case .bearerError(let code, let description) = fault
        else { return nil }
        let status =
            switch code {
            case "invalid_token": 401
            case "insufficient_scope": 403
            default: 400
            }
        return challenge(
            scheme: record.dpopThumbprint == nil ? "Bearer" : "DPoP", error: code, description: description,
            endpoint: endpoint, status: status)
    }

    private func challenge(
        scheme: String, error: String?, description: String?, endpoint: TestEndpoint, nonce: Bool = false,
        extra: [(String, String)] = [], status: Int = 401
    ) -> HTTPServerAction {
        var parameters: [(String, String)] = []
        if scheme == "DPoP" { parameters.append(("algs", "ES256 RS256 PS256 EdDSA")) }
        if let error { parameters.append(("error", error)) }
        if let description { parameters.append(("error_description", description)) }
        parameters += extra
        let value = parameters.isEmpty
            ? scheme : scheme + " " + parameters.map { "\($0.0)=\"\($0.1)\"" }.joined(separator: ", ")
        var headers: HTTPHeaders = ["WWW-Authenticate": value, "Cache-Control": "no-store"]
        if nonce || scheme == "DPoP" { headers = headers + nonceHeader(for: endpoint, always: nonce) }
        return .respond(HTTPServerResponse(status: status, headers: headers))
    }

    // MARK: UserInfo

    func userInfo(_ request: HTTPServerRequest, url: String) -> HTTPServerAction {
        guard request.method == "GET" || request.method == "POST" else {
            return .respond(HTTPServerResponse(status: 405, headers: ["Allow": "GET, POST"]))
        }
        switch authenticate(request, url: url, endpoint: .userinfo) {
        case .refused(let action): return action
        case .granted(let record):
            if let refusal = bearerRefusal(for: record, endpoint: .userinfo) { return refusal }
            let user = configuration.user
            let subject = takeFault(.userinfo, .wrongUserInfoSubject) ? "someone-else" : record.subject
            return jsonAnswer(
                ["sub": .string(subject), "name": .string(user.name), "email": .string(user.email), "email_verified": true],
                headers: record.dpopThumbprint == nil ? [:] : nonceHeader(for: .userinfo))
        }
    }

    // MARK: Revocation (RFC 7009)

    func revoke(_ request: HTTPServerRequest) -> HTTPServerAction {
        guard request.method == "POST" else { return .respond(HTTPServerResponse(status: 405, headers: ["Allow": "POST"])) }
        // RFC 7009 §2.1: the client authenticates as at the token endpoint (a public client by its id).
        let form = Dictionary(request.formItems.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard let client = authenticatedClient(request, form: form) else {
            return oauthError("invalid_client", "unknown client", status: 401)
        }
        guard let token = request.formValue("token") else { return oauthError("invalid_request", "token is missing") }
        // RFC 7009 §2.1: only the client the token was issued to may revoke it.
        if let record = refreshTokens[token] {
            guard record.clientID == client.id else { return oauthError("invalid_grant", "token belongs to another client") }
            revokedFamilies.insert(record.family)
        } else if let record = accessTokens[token] {
            guard record.clientID == client.id else { return oauthError("invalid_grant", "token belongs to another client") }
            accessTokens[token] = nil
        }
        // RFC 7009 §2.2: an unknown token is answered like a revoked one.
        return .respond(HTTPServerResponse(status: 200))
    }

    // MARK: End session (OpenID RP-Initiated Logout)

    func endSession(_ request: HTTPServerRequest) -> HTTPServerAction {
        if let target = request.queryValue("post_logout_redirect_uri") {
            var pairs: [(String, String)] = []
            if let state = request.queryValue("state") { pairs.append(("state", state)) }
            return .respond(HTTPServerResponse(status: 302, headers: ["Location": FormEncoding.appending(pairs, to: target)]))
        }
        return .respond(.html(LoginPage.message("You are signed out of the test provider. You can close this window.")))
    }

    // MARK: The protected resource

    func resource(_ request: HTTPServerRequest, url: String) -> HTTPServerAction {
        // A protected resource with RFC 9728 metadata names it in its 401s, and accepts only
        // tokens bound to itself (RFC 8707: the audience).
        if let protected = protectedResource(atPath: request.path) {
            guard request.headers["Authorization"] != nil else { return resourceMetadataChallenge(for: protected, error: nil) }
            if case .granted(let record) = authenticate(request, url: url, endpoint: .resource),
                record.resource != advertisedResource(for: protected)
            {
                return resourceMetadataChallenge(for: protected, error: "invalid_token")
            }
            if case .granted(let record) = authenticate(request, url: url, endpoint: .resource),
                let refusal = insufficientScope(record, for: protected)
            {
                return refusal
            }
        }
        switch authenticate(request, url: url, endpoint: .resource) {
        case .refused(let action): return action
        case .granted(let record):
            let scheme = record.dpopThumbprint == nil ? "Bearer" : "DPoP"
            if let fault = takeFault(.resource, where: { if case .stepUp = $0 { true } else { false } }),
                case .stepUp(let acrValues, let maxAge) = fault
            {
                return stepUpChallenge(scheme: scheme, acrValues: acrValues, maxAge: maxAge)
            }
            if let required = configuration.resourceRequiredACR, record.acr != required {
                return stepUpChallenge(scheme: scheme, acrValues: required, maxAge: nil)
            }
            var answer: JSONObject = ["resource": "ok", "sub": .string(record.subject), "method": .string(request.method)]
            if let audience = record.resource { answer["aud"] = .string(audience) }
            if let acr = record.acr { answer["acr"] = .string(acr) }
            return jsonAnswer(.object(answer), headers: nonceHeader(for: .resource))
        }
    }

    /// RFC 9470 §3: `insufficient_user_authentication` with `acr_values` and `max_age`.
    private func stepUpChallenge(scheme: String, acrValues: String, maxAge: Int?) -> HTTPServerAction {
        var extra = [("acr_values", acrValues)]
        if let maxAge { extra.append(("max_age", String(maxAge))) }
        return challenge(
            scheme: scheme, error: "insufficient_user_authentication",
            description: "a stronger authentication is required", endpoint: .resource, extra: extra)
    }
}
