import Foundation
import VersolaCrypto
import VersolaHTTP
import VersolaJOSE

extension TestProvider {
    func token(_ request: HTTPServerRequest, url: String) -> HTTPServerAction {
        guard request.method == "POST" else { return .respond(HTTPServerResponse(status: 405, headers: ["Allow": "POST"])) }
        let form = Dictionary(request.formItems.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard let client = authenticatedClient(request, form: form) else {
            return oauthError("invalid_client", "unknown client or wrong secret", status: 401)
        }
        switch form["grant_type"] {
        case "authorization_code": return exchangeCode(request, form: form, client: client, url: url)
        case "refresh_token": return refresh(request, form: form, client: client, url: url)
        case Self.deviceCodeGrantType: return deviceCodeGrant(request, form: form, client: client, url: url)
        case .none: return oauthError("invalid_request", "grant_type is missing")
        default: return oauthError("unsupported_grant_type", "only authorization_code, refresh_token and device_code")
        }
    }

    private func exchangeCode(_ request: HTTPServerRequest, form: [String: String], client: TestClient, url: String)
        -> HTTPServerAction
    {
        guard let code = form["code"], var record = codes[code] else {
            return oauthError("invalid_grant", "unknown authorization code")
        }
        let bound = record.request.dpopThumbprint
        let proof = checkAuthorizationServerProof(
            request, url: url, endpoint: .token, required: bound != nil || configuration.requireDPoP)
        var thumbprint: String?
        switch proof {
        case .rejected(let action): return action
        case .accepted(let jkt): thumbprint = jkt
        case .absent: break
        }
        if let refusal = armedOAuthError() { return refusal }
        guard !record.used else {
            // A replayed code revokes what it already produced (RFC 6749 §4.1.2).
            revokedFamilies.insert(record.family)
            return oauthError("invalid_grant", "authorization code was already used")
        }
        record.used = true
        codes[code] = record
        guard now().timeIntervalSince(record.issuedAt) <= TimeInterval(configuration.codeLifetime) else {
            return oauthError("invalid_grant", "authorization code expired")
        }
        guard record.request.clientID == client.id else {
            return oauthError("invalid_grant", "code was issued to another client")
        }
        guard form["redirect_uri"] == record.request.redirectURI else {
            return oauthError("invalid_grant", "redirect_uri differs from the authorization request")
        }
        guard let verifier = form["code_verifier"], Self.isValidVerifier(verifier),
            Base64URL.encode(SHA256.hash(Array(verifier.utf8))) == record.request.codeChallenge
        else {
            return oauthError("invalid_grant", "code_verifier does not match the challenge")
        }
        if let bound, bound != thumbprint {
            return oauthError("invalid_grant", "the DPoP key differs from the one the authorization was bound to")
        }
        if configuration.requireResourceIndicator, form["resource"] != record.request.resource {
            return oauthError("invalid_target", "resource must name the resource the authorization was for")
        }
        return mintTokens(
            client: client, scope: record.request.scope, thumbprint: thumbprint, acr: record.request.acrValues?
                .split(separator: " ").first.map(String.init),
            authTime: record.authTime, nonce: record.request.nonce, family: record.family, endpoint: .token,
            refreshToken: record.request.offline ? .new : .none, resource: record.request.resource)
    }

    private func refresh(_ request: HTTPServerRequest, form: [String: String], client: TestClient, url: String)
        -> HTTPServerAction
    {
        guard let presented = form["refresh_token"], let record = refreshTokens[presented] else {
            return oauthError("invalid_grant", "unknown refresh token")
        }
        let proof = checkAuthorizationServerProof(
            request, url: url, endpoint: .token, required: record.dpopThumbprint != nil || configuration.requireDPoP)
        var thumbprint: String?
        switch proof {
        case .rejected(let action): return action
        case .accepted(let jkt): thumbprint = jkt
        case .absent: break
        }
        if let refusal = armedOAuthError() { return refusal }
        guard !revokedFamilies.contains(record.family) else {
            return oauthError("invalid_grant", "refresh token was revoked")
        }
        guard !record.rotated else {
            // Reuse of a rotated token: someone holds a copy. Revoke the whole family.
            revokedFamilies.insert(record.family)
            return oauthError("invalid_grant", "refresh token reuse detected; the grant was revoked")
        }
        guard record.clientID == client.id else { return oauthError("invalid_grant", "token belongs to another client") }
        if let bound = record.dpopThumbprint, bound != thumbprint {
            return oauthError("invalid_grant", "the refresh token is bound to another DPoP key")
        }
        if configuration.requireResourceIndicator, form["resource"] != record.resource {
            return oauthError("invalid_target", "resource must name the resource the grant is for")
        }
        if configuration.rotateRefreshTokens { refreshTokens[presented]?.rotated = true }
        return mintTokens(
            client: client, scope: record.scope, thumbprint: record.dpopThumbprint ?? thumbprint, acr: record.acr,
            authTime: record.authTime, nonce: nil, family: record.family, endpoint: .token,
            refreshToken: configuration.rotateRefreshTokens ? .new : .none, resource: record.resource)
    }

    /// The answer of an `oauthError` fault armed on the token endpoint, whatever its code
    /// (`invalid_client` is a 401, RFC 6749 §5.2).
    func armedOAuthError() -> HTTPServerAction? {
        guard let fault = takeFault(.token, where: { if case .oauthError = $0 { true } else { false } }),
            case .oauthError(let code) = fault
        else { return nil }
        return oauthError(code, "the provider was told to refuse", status: code == "invalid_client" ? 401 : 400)
    }

    /// RFC 7636 §4.1: 43 to 128 characters of the unreserved set.
    static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count)
            && verifier.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                    UInt8(ascii: "~"):
                    true
                default: false
                }
            }
    }

    /// Mints the tokens of a grant. An ID token comes with a code exchange (it has a nonce), a
    /// device grant (`alwaysIDToken`), and a refresh when ``TestProviderConfiguration/issueIDTokenOnRefresh``.
    /// Whether an answer carries a new refresh token.
    enum RefreshTokenIssue { case new, none }

    func mintTokens(
        client: TestClient, scope: String, thumbprint: String?, acr: String?, authTime: Date, nonce: String?,
        family: String, endpoint: TestEndpoint, alwaysIDToken: Bool = false, refreshToken issue: RefreshTokenIssue = .new,
        resource: String? = nil
    ) -> HTTPServerAction {
        let lifetime = configuration.accessTokenLifetime
        let accessToken = configuration.jwtAccessTokens
            ? mintAccessTokenJWT(client: client, scope: scope, thumbprint: thumbprint, lifetime: lifetime) : opaqueValue()
        accessTokens[accessToken] = AccessTokenRecord(
            subject: configuration.user.subject, clientID: client.id, scope: scope, dpopThumbprint: thumbprint, acr: acr,
            expiresAt: configuration.accessTokensNeverExpire ? .distantFuture : now() + TimeInterval(lifetime), family: family,
            resource: resource)
        var answer = JSONObject()
        answer["access_token"] = .string(accessToken)
        let bearerFault = thumbprint != nil && takeFault(.token, .bearerTokenType)
        answer["token_type"] = .string(thumbprint == nil || bearerFault ? "Bearer" : "DPoP")
        if !configuration.accessTokensNeverExpire { answer["expires_in"] = .integer(Int64(lifetime)) }
        answer["scope"] = .string(scope)
        if configuration.issueRefreshTokens, issue == .new, client.refreshAllowed {
            let refreshToken = opaqueValue()
            refreshTokens[refreshToken] = RefreshTokenRecord(
                clientID: client.id, scope: scope, dpopThumbprint: thumbprint, acr: acr, authTime: authTime, family: family,
                resource: resource)
            answer["refresh_token"] = .string(refreshToken)
        }
        // An ID token answers `openid` only: a plain OAuth 2.0 grant gets none (A16).
        let openID = scope.split(separator: " ").contains("openid") || configuration.requireOpenIDScope
        if openID && (alwaysIDToken || nonce != nil || configuration.issueIDTokenOnRefresh) {
            answer["id_token"] = .string(
                mintIDToken(
                    IDTokenContent(clientID: client.id, nonce: nonce, authTime: authTime, acr: acr, accessToken: accessToken),
                    algorithm: client.idTokenAlgorithm))
        }
        return jsonAnswer(.object(answer), headers: nonceHeader(for: endpoint))
    }

    /// An RFC 9068 access token: a JWT with `exp`, signed with the provider's RSA key, bound
    /// with `cnf.jkt` when DPoP is used.
    private func mintAccessTokenJWT(client: TestClient, scope: String, thumbprint: String?, lifetime: Int) -> String {
        let issuedAt = Int64(now().timeIntervalSince1970)
        var claims: JSONObject = [
            "iss": .string(issuer), "sub": .string(configuration.user.subject), "aud": .string(url(of: .resource)),
            "client_id": .string(client.id), "scope": .string(scope), "iat": .integer(issuedAt),
            "exp": .integer(issuedAt + Int64(lifetime)), "jti": .string(opaqueValue()),
        ]
        if let thumbprint { claims["cnf"] = .object(["jkt": .string(thumbprint)]) }
        let (signer, keyID) = signingKeys.signer(for: .rs256, rogue: false)
        return (try? JWS.sign(header: ["typ": "at+jwt", "kid": .string(keyID)], payload: .object(claims), signer: signer))
            ?? opaqueValue()
    }
}
