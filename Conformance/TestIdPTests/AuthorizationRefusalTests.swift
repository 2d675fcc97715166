import Testing
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

/// Deliberately wrong clients at the authorization and token endpoints (A2, A5, A6, E9, E12).
@Suite struct AuthorizationRefusalTests {
    /// Expects an error redirect to the request's own redirect URI, with state and iss.
    static func expectErrorRedirect(
        _ answer: HTTPServerAction, _ error: String, _ request: AuthorizationRequest, issuer: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(answer.status == 302, sourceLocation: sourceLocation)
        #expect(answer.redirectBase == request.redirectURI, sourceLocation: sourceLocation)
        let parameters = answer.redirectParameters
        #expect(parameters["error"] == error, sourceLocation: sourceLocation)
        #expect(parameters["state"] == request.state, sourceLocation: sourceLocation)
        #expect(parameters["iss"] == issuer, sourceLocation: sourceLocation)
        #expect(parameters["code"] == nil, sourceLocation: sourceLocation)
    }

    // RFC 6749 §4.1.2.1: an unknown client is never redirected to.
    @Test func unknownClientGetsAPageNotARedirect() async throws {
        try await withProvider { idp in
            var request = AuthorizationRequest()
            request.clientID = "intruder"
            let answer = await idp.startAuthorization(request)
            #expect(answer.status == 400)
            #expect(answer.location == nil)
            #expect(answer.header("Content-Type")?.hasPrefix("text/html") == true)
            request.omit = ["client_id"]
            #expect(await idp.startAuthorization(request).status == 400)
        }
    }

    // RFC 6749 §4.1.2.1: an unregistered or missing redirect URI gets a page, not a redirect.
    @Test(arguments: [
        "https://attacker.example/callback", "http://127.0.0.1:5000/other", "http://localhost/callback",
        "http://127.0.0.1:5000/callback?extra=1", "http://127.0.0.1:5000/callback#fragment",
        "http://127.0.0.2/callback", "https://127.0.0.1/callback", "",
        "http://user@127.0.0.1:5000/callback", "http://127.0.0.1:5000/call%62ack", "HTTP://127.0.0.1:5000/callback",
    ])
    func unregisteredRedirectURIGetsAPage(redirectURI: String) async throws {
        try await withProvider { idp in
            var request = AuthorizationRequest()
            request.redirectURI = redirectURI
            let answer = await idp.startAuthorization(request)
            #expect(answer.status == 400)
            #expect(answer.location == nil)
        }
    }

    @Test func missingRedirectURIGetsAPage() async throws {
        try await withProvider { idp in
            var request = AuthorizationRequest()
            request.omit = ["redirect_uri"]
            let answer = await idp.startAuthorization(request)
            #expect(answer.status == 400)
            #expect(answer.location == nil)
        }
    }

    // A2: S256 only; plain, a missing method, a missing or malformed challenge are refused.
    @Test(arguments: [
        ("plain", nil), ("S512", nil), (nil, "code_challenge_method"), (nil, "code_challenge"),
    ] as [(String?, String?)])
    func pkceOtherThanS256IsRefused(method: String?, omitted: String?) async throws {
        try await withProvider { idp in
            var request = AuthorizationRequest()
            if let method { request.overrides["code_challenge_method"] = method }
            if let omitted { request.omit = [omitted] }
            Self.expectErrorRedirect(await idp.startAuthorization(request), "invalid_request", request, issuer: idp.issuer)
        }
    }

    @Test(arguments: ["short", String(repeating: "A", count: 44), String(repeating: "*", count: 43)])
    func malformedChallengeIsRefused(challenge: String) async throws {
        try await withProvider { idp in
            var request = AuthorizationRequest()
            request.overrides["code_challenge"] = challenge
            Self.expectErrorRedirect(await idp.startAuthorization(request), "invalid_request", request, issuer: idp.issuer)
        }
    }

    @Test(arguments: ["profile email", "", "openidx", "OPENID"])
    func scopeWithoutOpenIDIsRefused(scope: String) async throws {
        try await withProvider { idp in
            var request = AuthorizationRequest()
            request.scope = scope
            Self.expectErrorRedirect(await idp.startAuthorization(request), "invalid_scope", request, issuer: idp.issuer)
        }
    }

    @Test(arguments: ["token", "id_token", "code id_token"])
    func responseTypeOtherThanCodeIsRefused(responseType: String) async throws {
        try await withProvider { idp in
            var request = AuthorizationRequest()
            request.overrides["response_type"] = responseType
            Self.expectErrorRedirect(
                await idp.startAuthorization(request), "unsupported_response_type", request, issuer: idp.issuer)
        }
    }

    @Test func negativeMaxAgeIsRefused() async throws {
        try await withProvider { idp in
            var request = AuthorizationRequest()
            request.extra = [("max_age", "-1")]
            Self.expectErrorRedirect(await idp.startAuthorization(request), "invalid_request", request, issuer: idp.issuer)
        }
    }

    // E9: prompt=none without a session is login_required, with state.
    @Test func promptNoneWithoutSessionIsLoginRequired() async throws {
        try await withProvider { idp in
            var request = AuthorizationRequest()
            request.extra = [("prompt", "none")]
            Self.expectErrorRedirect(await idp.startAuthorization(request), "login_required", request, issuer: idp.issuer)
        }
        try await withProvider(configure: { $0.autoLogin = true }) { idp in
            var request = AuthorizationRequest()
            request.extra = [("prompt", "none")]
            #expect(await idp.startAuthorization(request).redirectParameters["code"] != nil)
        }
    }

    // A2, A6: a verifier that does not hash to the challenge is invalid_grant.
    @Test func wrongCodeVerifierIsRefused() async throws {
        try await withProvider { idp in
            let request = AuthorizationRequest()
            let code = try await idp.code(for: request)
            let answer = await idp.exchange(code: code, for: request, verifier: PKCEPair().verifier)
            #expect(answer.status == 400)
            #expect(answer.oauthError == "invalid_grant")
            #expect(answer.header("Cache-Control") == "no-store")
        }
    }

    // RFC 7636 §4.1: a verifier shorter than 43 characters is refused even when it matches.
    @Test func tooShortVerifierIsRefusedEvenWhenItMatches() async throws {
        try await withProvider { idp in
            var request = AuthorizationRequest()
            request.pkce = PKCEPair(verifier: "only-thirty-characters-long-xx")
            let code = try await idp.code(for: request)
            #expect(await idp.exchange(code: code, for: request).oauthError == "invalid_grant")
        }
    }

    @Test func missingVerifierIsRefused() async throws {
        try await withProvider { idp in
            let request = AuthorizationRequest()
            let code = try await idp.code(for: request)
            let answer = await idp.post(
                "/token",
                form: [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", request.redirectURI),
                    ("client_id", request.clientID),
                ])
            #expect(answer.oauthError == "invalid_grant")
        }
    }

    // RFC 6749 §4.1.2: a code is single use; its replay revokes what it produced.
    @Test func reusedCodeIsRefusedAndRevokesItsTokens() async throws {
        try await withProvider { idp in
            let request = AuthorizationRequest()
            let code = try await idp.code(for: request)
            let tokens = try ProviderHarness.tokens(from: await idp.exchange(code: code, for: request))
            #expect(await idp.getProtected("/userinfo", scheme: "Bearer", token: tokens.accessToken).status == 200)

            let replay = await idp.exchange(code: code, for: request)
            #expect(replay.status == 400)
            #expect(replay.oauthError == "invalid_grant")

            let userInfo = await idp.getProtected("/userinfo", scheme: "Bearer", token: tokens.accessToken)
            #expect(userInfo.status == 401)
            #expect(AuthenticateChallenge(userInfo.header("WWW-Authenticate"))?.parameters["error"] == "invalid_token")
            let refresh = try #require(tokens.refreshToken)
            #expect(await idp.refresh(refresh).oauthError == "invalid_grant")
            #expect(await idp.provider.familyWasRevoked(ofRefreshToken: refresh))
        }
    }

    // A6: the redirect_uri at the token endpoint must be the authorization request's, exactly.
    @Test(arguments: ["http://127.0.0.1:53683/callback", "http://127.0.0.1:53682/callback/", ""])
    func redirectURIDifferingAtTheTokenEndpointIsRefused(redirectURI: String) async throws {
        try await withProvider { idp in
            let request = AuthorizationRequest()
            let code = try await idp.code(for: request)
            let answer = await idp.exchange(code: code, for: request, redirectURI: redirectURI)
            #expect(answer.oauthError == "invalid_grant")
        }
    }

    @Test func expiredCodeIsRefused() async throws {
        try await withProvider { idp in
            let request = AuthorizationRequest()
            let fresh = try await idp.code(for: request)
            idp.clock.advance(by: 60)
            #expect(await idp.exchange(code: fresh, for: request).status == 200)  // at the limit: still valid

            let stale = try await idp.code(for: request)
            idp.clock.advance(by: 61)
            let answer = await idp.exchange(code: stale, for: request)
            #expect(answer.status == 400)
            #expect(answer.oauthError == "invalid_grant")
        }
    }

    @Test func codeIssuedToAnotherClientIsRefused() async throws {
        try await withProvider { idp in
            let request = AuthorizationRequest()
            let code = try await idp.code(for: request)
            #expect(await idp.exchange(code: code, for: request, clientID: "versola-test-es256").oauthError == "invalid_grant")
        }
    }

    @Test func unknownCodeIsRefused() async throws {
        try await withProvider { idp in
            let answer = await idp.exchange(code: "made-up", for: AuthorizationRequest())
            #expect(answer.status == 400)
            #expect(answer.oauthError == "invalid_grant")
        }
    }

    @Test func tokenEndpointRefusesUnknownClientsAndGrantTypes() async throws {
        try await withProvider { idp in
            let unknown = await idp.post("/token", form: [("grant_type", "authorization_code"), ("client_id", "nobody")])
            #expect(unknown.status == 401)
            #expect(unknown.oauthError == "invalid_client")
            let noGrant = await idp.post("/token", form: [("client_id", "versola-test")])
            #expect(noGrant.oauthError == "invalid_request")
            let password = await idp.post(
                "/token", form: [("grant_type", "password"), ("client_id", "versola-test"), ("username", "alice")])
            #expect(password.oauthError == "unsupported_grant_type")
            #expect(await idp.get("/token").status == 405)
        }
    }
}
