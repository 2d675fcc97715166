import Testing
import VersolaCrypto
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

/// Every ``TestFault`` does what its documentation says, and only where it is armed.
@Suite struct TestFaultTests {
    // R8: respond with a status, Retry-After and a body, for `times` requests.
    @Test func respondAnswersWithStatusHeadersAndBody() async throws {
        try await withProvider { idp in
            await idp.provider.arm(
                TestFaultRule(
                    .discovery, .respond(status: 503, headers: ["Retry-After": "3"], body: #"{"error":"busy"}"#), times: 2))
            for _ in 0..<2 {
                let faulted = await idp.get("/.well-known/openid-configuration")
                #expect(faulted.status == 503)
                #expect(faulted.header("Retry-After") == "3")
                #expect(faulted.header("Content-Type") == "application/json")
                #expect(faulted.json?["error"] == "busy")
            }
            #expect(await idp.get("/.well-known/openid-configuration").status == 200)
        }
    }

    @Test func respondKeepsAGivenContentTypeAndAnEmptyBody() async throws {
        try await withProvider { idp in
            await idp.provider.arm(TestFaultRule(.jwks, .respond(status: 500, headers: ["Content-Type": "text/plain"], body: "x")))
            await idp.provider.arm(TestFaultRule(.jwks, .respond(status: 429)))
            let first = await idp.get("/jwks")
            #expect(first.status == 500)
            #expect(first.response?.headers.values("Content-Type") == ["text/plain"])
            let second = await idp.get("/jwks")
            #expect(second.status == 429)
            #expect(second.response?.body.isEmpty == true)
            #expect(second.header("Content-Type") == nil)
        }
    }

    @Test func faultsApplyOnlyToTheirEndpoint() async throws {
        try await withProvider { idp in
            await idp.provider.arm(TestFaultRule(.token, .respond(status: 503), times: nil))
            #expect(await idp.get("/jwks").status == 200)
            #expect(await idp.get("/.well-known/openid-configuration").status == 200)
            let request = AuthorizationRequest()
            let code = try await idp.code(for: request)
            #expect(await idp.exchange(code: code, for: request).status == 503)
            #expect(await idp.exchange(code: code, for: request).status == 503)
        }
    }

    @Test func redirectAnswers302ToTheLocation() async throws {
        try await withProvider { idp in
            await idp.provider.arm(TestFaultRule(.token, .redirect(location: "https://elsewhere.example/token")))
            let answer = await idp.post("/token", form: [("grant_type", "refresh_token"), ("client_id", "versola-test")])
            #expect(answer.status == 302)
            #expect(answer.location == "https://elsewhere.example/token")
        }
    }

    @Test func closeAfterReadingAndResetReplaceTheAnswer() async throws {
        try await withProvider { idp in
            await idp.provider.arm(TestFaultRule(.token, .closeAfterReading))
            await idp.provider.arm(TestFaultRule(.userinfo, .reset))
            let request = AuthorizationRequest()
            let code = try await idp.code(for: request)
            #expect(await idp.exchange(code: code, for: request) == .closeWithoutAnswer)
            #expect(await idp.get("/userinfo") == .reset)
            // The request was read (it is in the log) but not processed: the code still works.
            #expect(await idp.provider.requests(to: .token).count == 1)
            #expect(await idp.exchange(code: code, for: request).status == 200)
            #expect(await idp.get("/userinfo").status == 401)
        }
    }

    // closeBeforeReading is decided per connection, before any endpoint is known.
    @Test func closeBeforeReadingIsAConnectionDecision() async throws {
        try await withProvider { idp in
            await idp.provider.arm(TestFaultRule(.token, .closeBeforeReading))
            #expect(await idp.get("/jwks").status == 200)  // handle() never consumes it
            #expect(await idp.provider.acceptDecision() == .closeBeforeReading)
            #expect(await idp.provider.acceptDecision() == .serve)
        }
    }

    @Test func delayThenAnswersNormally() async throws {
        try await withProvider { idp in
            await idp.provider.arm(TestFaultRule(.jwks, .delay(milliseconds: 1)))
            await idp.provider.arm(TestFaultRule(.jwks, .respond(status: 503)))
            // The delay passes, then the next armed fault still applies.
            #expect(await idp.get("/jwks").status == 503)
            #expect(await idp.get("/jwks").status == 200)
        }
    }

    // A delay armed for ever delays each request once (it used to loop on one request). The
    // limit only stops a regression from hanging the run; it is wide enough for a loaded run
    // under the thread sanitizer.
    @Test(.timeLimit(.minutes(5))) func delayForeverDelaysEachRequestOnce() async throws {
        try await withProvider { idp in
            await idp.provider.arm(TestFaultRule(.jwks, .delay(milliseconds: 0), times: nil))
            #expect(await idp.get("/jwks").status == 200)
            #expect(await idp.get("/jwks").status == 200)
        }
    }

    @Test func wrongRedirectIssuerPutsAnotherIssOnTheRedirect() async throws {
        try await withProvider(configure: { $0.autoLogin = true }) { idp in
            await idp.provider.arm(TestFaultRule(.authorize, .wrongRedirectIssuer))
            let faulted = await idp.startAuthorization(AuthorizationRequest())
            let wrong = try #require(faulted.redirectParameters["iss"])
            #expect(wrong != idp.issuer)
            #expect(faulted.redirectParameters["code"] != nil)
            #expect(await idp.startAuthorization(AuthorizationRequest()).redirectParameters["iss"] == idp.issuer)
        }
    }

    // E9: oauthError on the authorization redirect, at PAR and at the token endpoint.
    @Test func oauthErrorRefusesWithItsCode() async throws {
        try await withProvider(configure: { $0.autoLogin = true }) { idp in
            let request = AuthorizationRequest()
            await idp.provider.arm(TestFaultRule(.authorize, .oauthError("access_denied")))
            AuthorizationRefusalTests.expectErrorRedirect(
                await idp.startAuthorization(request), "access_denied", request, issuer: idp.issuer)

            await idp.provider.arm(TestFaultRule(.par, .oauthError("invalid_request")))
            #expect(await PushedAuthorizationTests.push(idp, request).oauthError == "invalid_request")
            #expect(await PushedAuthorizationTests.push(idp, request).status == 201)

            let code = try await idp.code(for: request)
            await idp.provider.arm(TestFaultRule(.token, .oauthError("invalid_grant")))
            let refused = await idp.exchange(code: code, for: request)
            #expect(refused.status == 400)
            #expect(refused.oauthError == "invalid_grant")
            // Refused before the code was looked at: it can still be exchanged.
            let tokens = try ProviderHarness.tokens(from: await idp.exchange(code: code, for: request))

            await idp.provider.arm(TestFaultRule(.token, .oauthError("invalid_client")))
            let client = await idp.refresh(try #require(tokens.refreshToken))
            #expect(client.status == 401)
            #expect(client.oauthError == "invalid_client")
            #expect(await idp.refresh(try #require(tokens.refreshToken)).status == 200)
        }
    }

    @Test func invalidDPoPProofRejectsACorrectProofOnce() async throws {
        try await withProvider { idp in
            let key = try ClientDPoPKey()
            let request = AuthorizationRequest()
            let code = try await idp.code(for: request)
            await idp.provider.arm(TestFaultRule(.token, .invalidDPoPProof))
            #expect(await idp.exchange(code: code, for: request, dpop: try idp.tokenProof(key)).oauthError == "invalid_dpop_proof")
            let tokens = try ProviderHarness.tokens(from: await idp.exchange(code: code, for: request, dpop: try idp.tokenProof(key)))

            await idp.provider.arm(TestFaultRule(.resource, .invalidDPoPProof))
            let refused = try await idp.getWithDPoP("/resource", token: tokens.accessToken, key: key)
            #expect(refused.status == 401)
            #expect(AuthenticateChallenge(refused.header("WWW-Authenticate"))?.parameters["error"] == "invalid_dpop_proof")
            #expect(try await idp.getWithDPoP("/resource", token: tokens.accessToken, key: key).status == 200)
        }
    }

    // D5: a DPoP request answered with token_type Bearer; the token is still DPoP-bound.
    @Test func bearerTokenTypeMislabelsADPoPToken() async throws {
        try await withProvider { idp in
            let key = try ClientDPoPKey()
            await idp.provider.arm(TestFaultRule(.token, .bearerTokenType))
            // A Bearer client does not consume it.
            #expect(try await idp.tokens().tokenType == "Bearer")
            let mislabelled = try await idp.tokens(key: key)
            #expect(mislabelled.tokenType == "Bearer")
            #expect(await idp.getProtected("/resource", scheme: "Bearer", token: mislabelled.accessToken).status == 401)
            #expect(try await idp.tokens(key: key).tokenType == "DPoP")
        }
    }

    // A7: each ID-token fault breaks exactly the check it names, once.
    @Test func algNoneIssuesAnUnsignedIDToken() async throws {
        try await withProvider { idp in
            await idp.provider.arm(TestFaultRule(.token, .algNone))
            let tokens = try await idp.tokens()
            #expect(try ProviderHarness.unverifiedHeader(tokens.idToken)["alg"] == "none")
            #expect(tokens.idToken.hasSuffix("."))
            #expect(throws: JWSError.algorithmNone) { _ = try JWS(compact: tokens.idToken) }
            #expect(try ProviderHarness.unverifiedPayload(tokens.idToken)["sub"] == "248289761001")
            _ = try await idp.verifiedClaims(of: try await idp.tokens().idToken)
        }
    }

    @Test func badSignatureCorruptsTheSignatureOfAKnownKey() async throws {
        try await withProvider { idp in
            await idp.provider.arm(TestFaultRule(.token, .badSignature))
            let tokens = try await idp.tokens()
            #expect(try ProviderHarness.unverifiedHeader(tokens.idToken)["kid"] == "rsa-1")
            await #expect(throws: JWSError.invalidSignature) { _ = try await idp.verifiedClaims(of: tokens.idToken) }
            _ = try await idp.verifiedClaims(of: try await idp.tokens().idToken)
        }
    }

    @Test func unknownSigningKeySignsWithAnUnpublishedKey() async throws {
        try await withProvider { idp in
            await idp.provider.arm(TestFaultRule(.token, .unknownSigningKey))
            let tokens = try await idp.tokens()
            let kid = try #require(try ProviderHarness.unverifiedHeader(tokens.idToken)["kid"]?.string)
            await #expect(throws: JWSError.keyNotFound(keyID: kid)) { _ = try await idp.verifiedClaims(of: tokens.idToken) }
            _ = try await idp.verifiedClaims(of: try await idp.tokens().idToken)
        }
    }

    enum ClaimFault: String, CaseIterable, Sendable {
        case wrongNonce, wrongAudience, expiredIDToken, wrongIDTokenIssuer, wrongAccessTokenHash

        var fault: TestFault {
            switch self {
            case .wrongNonce: .wrongNonce
            case .wrongAudience: .wrongAudience
            case .expiredIDToken: .expiredIDToken
            case .wrongIDTokenIssuer: .wrongIDTokenIssuer
            case .wrongAccessTokenHash: .wrongAccessTokenHash
            }
        }
    }

    @Test(arguments: ClaimFault.allCases)
    func claimFaultBendsOnlyItsClaim(claimFault: ClaimFault) async throws {
        try await withProvider { idp in
            let healthy = try await idp.tokens()
            let reference = try await idp.verifiedClaims(of: healthy.idToken).claims
            await idp.provider.arm(TestFaultRule(.token, claimFault.fault))
            let bent = try await idp.tokens()
            // Still correctly signed by a published key: only the claim is wrong.
            let claims = try await idp.verifiedClaims(of: bent.idToken).claims
            let now = idp.clock.seconds
            let atHash = Base64URL.encode(SHA256.hash(Array(bent.accessToken.utf8)).prefix(16))
            let checks: [String: Bool] = [
                "nonce": claims["nonce"] == reference["nonce"],
                "aud": claims["aud"] == reference["aud"],
                "exp": (claims["exp"]?.int64 ?? 0) > now && (claims["iat"]?.int64 ?? 0) <= now,
                "iss": claims["iss"]?.string == idp.issuer,
                "at_hash": claims["at_hash"]?.string == atHash,
            ]
            let broken: String
            switch claimFault {
            case .wrongNonce: broken = "nonce"
            case .wrongAudience: broken = "aud"
            case .expiredIDToken: broken = "exp"
            case .wrongIDTokenIssuer: broken = "iss"
            case .wrongAccessTokenHash: broken = "at_hash"
            }
            for (name, holds) in checks { #expect(holds == (name != broken), "\(name)") }
            if claimFault == .expiredIDToken {
                #expect((claims["iat"]?.int64 ?? .max) < (claims["exp"]?.int64 ?? .min))
            }
            // Once only.
            let next = try await idp.verifiedClaims(of: try await idp.tokens().idToken).claims
            #expect(next["nonce"] == reference["nonce"] && next["aud"] == reference["aud"] && next["iss"] == reference["iss"])
        }
    }

    @Test func wrongNonceAddsANonceWhenNoneWasAsked() async throws {
        try await withProvider { idp in
            await idp.provider.arm(TestFaultRule(.token, .wrongNonce))
            var request = AuthorizationRequest()
            request.omit = ["nonce"]
            let tokens = try await idp.tokens(request)
            #expect(try await idp.verifiedClaims(of: tokens.idToken).claims["nonce"] != nil)
        }
    }

    @Test func adminEndpointIsNeverFaulted() async throws {
        try await withProvider { idp in
            await idp.provider.arm(TestFaultRule(.admin, .respond(status: 500), times: nil))
            #expect(await idp.get("/_admin/requests").status == 200)
        }
    }
}
