import Testing
import VersolaCrypto
import VersolaJOSE
import VersolaTestIdP

/// The authorization code flow done right (A4, A5, A6, A7).
@Suite struct AuthorizationCodeFlowTests {
    // A5: the redirect goes to the registered URI with code, state and the RFC 9207 iss.
    @Test func redirectCarriesCodeStateAndIssuer() async throws {
        try await withProvider { idp in
            let request = AuthorizationRequest()
            let redirect = try await idp.signIn(request)
            #expect(redirect.status == 302)
            #expect(redirect.redirectBase == request.redirectURI)
            let parameters = redirect.redirectParameters
            #expect(parameters["state"] == "state-123")
            #expect(parameters["iss"] == idp.issuer)
            let code = try #require(parameters["code"])
            #expect(code.utf8.count >= 43)
        }
    }

    // A6, A7: the token answer and every ID token claim a client checks.
    @Test func tokenAnswerAndIDTokenClaimsAreCorrect() async throws {
        try await withProvider { idp in
            let request = AuthorizationRequest()
            let code = try await idp.code(for: request)
            let answer = await idp.exchange(code: code, for: request)
            #expect(answer.status == 200)
            #expect(answer.header("Cache-Control") == "no-store")
            let json = try #require(answer.json)
            #expect(json["token_type"] == "Bearer")
            #expect(json["expires_in"] == 300)
            #expect(json["scope"]?.string == request.scope)
            let tokens = try ProviderHarness.tokens(from: answer)
            #expect(tokens.refreshToken != nil)

            let (claims, _) = try await idp.verifiedClaims(of: tokens.idToken)
            let now = idp.clock.seconds
            #expect(claims["iss"]?.string == idp.issuer)
            #expect(claims["sub"]?.string == "248289761001")
            #expect(claims["aud"]?.string == "versola-test")
            #expect(claims["iat"]?.int64 == now)
            #expect(claims["exp"]?.int64 == now + 600)
            #expect(claims["auth_time"]?.int64 == now)
            #expect(claims["nonce"]?.string == "nonce-456")
            let digest = SHA256.hash(Array(tokens.accessToken.utf8))
            #expect(claims["at_hash"]?.string == Base64URL.encode(digest.prefix(16)))
            #expect(claims["name"]?.string == "Alice Example")
        }
    }

    @Test func withoutANonceTheIDTokenHasNone() async throws {
        try await withProvider { idp in
            var request = AuthorizationRequest()
            request.omit = ["nonce"]
            let tokens = try await idp.tokens(request)
            #expect(try await idp.verifiedClaims(of: tokens.idToken).claims["nonce"] == nil)
        }
    }

    @Test func noRefreshTokenWhenTheProviderIssuesNone() async throws {
        try await withProvider(configure: { $0.issueRefreshTokens = false }) { idp in
            let tokens = try await idp.tokens()
            #expect(tokens.refreshToken == nil)
        }
    }

    // A4: RFC 8252 §7.3, any port on a loopback redirect with a registered path, IPv4 and IPv6.
    @Test(arguments: [
        "http://127.0.0.1/callback", "http://127.0.0.1:1/callback", "http://127.0.0.1:65535/callback",
        "http://[::1]:41000/callback",
    ])
    func loopbackRedirectOnAnyPortIsAccepted(redirectURI: String) async throws {
        try await withProvider(configure: { $0.autoLogin = true }) { idp in
            var request = AuthorizationRequest()
            request.redirectURI = redirectURI
            let redirect = await idp.startAuthorization(request)
            #expect(redirect.status == 302)
            #expect(redirect.redirectBase == redirectURI)
            let code = try #require(redirect.redirectParameters["code"])
            #expect(await idp.exchange(code: code, for: request).status == 200)
        }
    }

    @Test func exactPortClientRefusesAnotherPort() async throws {
        try await withProvider(configure: {
            $0.autoLogin = true
            $0.clients = [TestClient(id: "versola-test", redirectURIs: ["http://127.0.0.1:8400/callback"], allowsAnyLoopbackPort: false)]
        }) { idp in
            var request = AuthorizationRequest()
            request.redirectURI = "http://127.0.0.1:8400/callback"
            #expect(await idp.startAuthorization(request).status == 302)
            request.redirectURI = "http://127.0.0.1:8401/callback"
            let refused = await idp.startAuthorization(request)
            #expect(refused.status == 400)
            #expect(refused.location == nil)
        }
    }

    @Test func autoLoginRedirectsWithoutAForm() async throws {
        try await withProvider(configure: { $0.autoLogin = true }) { idp in
            let answer = await idp.startAuthorization(AuthorizationRequest())
            #expect(answer.status == 302)
            #expect(answer.redirectParameters["code"] != nil)
        }
    }
}
