import Testing
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

/// Sender-constrained tokens: dpop_jkt, the key binding at the resource, and the schemes
/// (D4, D5, RFC 9449 §7, §10).
@Suite struct DPoPBindingTests {
    // D4: a front-channel dpop_jkt binds the code to that key.
    @Test func codeBoundByDPoPJKTNeedsThatKey() async throws {
        try await withProvider { idp in
            let keyA = try ClientDPoPKey()
            var request = AuthorizationRequest()
            request.extra = [("dpop_jkt", keyA.thumbprint)]

            let other = await idp.exchange(code: try await idp.code(for: request), for: request, dpop: try idp.tokenProof(try ClientDPoPKey()))
            #expect(other.status == 400)
            #expect(other.oauthError == "invalid_grant")

            let none = await idp.exchange(code: try await idp.code(for: request), for: request)
            #expect(none.oauthError == "invalid_dpop_proof")

            let right = await idp.exchange(code: try await idp.code(for: request), for: request, dpop: try idp.tokenProof(keyA))
            let tokens = try ProviderHarness.tokens(from: right)
            #expect(tokens.tokenType == "DPoP")
            #expect(try await idp.getWithDPoP("/resource", token: tokens.accessToken, key: keyA).status == 200)
        }
    }

    @Test func resourceRefusesAProofByAnotherKey() async throws {
        try await withProvider { idp in
            let key = try ClientDPoPKey()
            let tokens = try await idp.tokens(key: key)
            let answer = try await idp.getWithDPoP("/resource", token: tokens.accessToken, key: try ClientDPoPKey())
            #expect(answer.status == 401)
            let challenge = try #require(AuthenticateChallenge(answer.header("WWW-Authenticate")))
            #expect(challenge.scheme == "DPoP")
            #expect(challenge.parameters["error"] == "invalid_token")
            #expect(try await idp.getWithDPoP("/userinfo", token: tokens.accessToken, key: try ClientDPoPKey()).status == 401)
        }
    }

    // RFC 9449 §7.2: a DPoP-bound token presented as Bearer is refused, with or without a proof.
    @Test func boundTokenSentAsBearerIsRefused() async throws {
        try await withProvider { idp in
            let key = try ClientDPoPKey()
            let tokens = try await idp.tokens(key: key)
            let bare = await idp.getProtected("/resource", scheme: "Bearer", token: tokens.accessToken)
            #expect(bare.status == 401)
            #expect(AuthenticateChallenge(bare.header("WWW-Authenticate"))?.scheme == "DPoP")
            let proof = try key.proof("GET", idp.url("/resource"), at: idp.clock.now, accessToken: tokens.accessToken)
            let withProof = await idp.getProtected("/resource", scheme: "Bearer", token: tokens.accessToken, dpop: proof)
            #expect(withProof.status == 401)
            #expect(await idp.getProtected("/userinfo", scheme: "Bearer", token: tokens.accessToken).status == 401)
        }
    }

    @Test func bearerTokenSentAsDPoPIsRefused() async throws {
        try await withProvider { idp in
            let tokens = try await idp.tokens()
            #expect(tokens.tokenType == "Bearer")
            let answer = try await idp.getWithDPoP("/resource", token: tokens.accessToken, key: try ClientDPoPKey())
            #expect(answer.status == 401)
            #expect(AuthenticateChallenge(answer.header("WWW-Authenticate"))?.parameters["error"] == "invalid_token")
            #expect(await idp.getProtected("/resource", scheme: "Bearer", token: tokens.accessToken).status == 200)
        }
    }

    @Test func resourceRefusesMissingUnknownAndExpiredTokens() async throws {
        try await withProvider { idp in
            let none = await idp.get("/resource")
            #expect(none.status == 401)
            #expect(none.header("WWW-Authenticate") == "Bearer")
            let unknown = await idp.getProtected("/resource", scheme: "Bearer", token: "made-up")
            #expect(AuthenticateChallenge(unknown.header("WWW-Authenticate"))?.parameters["error"] == "invalid_token")

            let tokens = try await idp.tokens()
            idp.clock.advance(by: 299)
            #expect(await idp.getProtected("/resource", scheme: "Bearer", token: tokens.accessToken).status == 200)
            idp.clock.advance(by: 1)
            let expired = await idp.getProtected("/resource", scheme: "Bearer", token: tokens.accessToken)
            #expect(expired.status == 401)
            #expect(AuthenticateChallenge(expired.header("WWW-Authenticate"))?.parameters["error"] == "invalid_token")
        }
    }

    @Test func resourceAnswersWithTheSubject() async throws {
        try await withProvider { idp in
            let key = try ClientDPoPKey()
            let tokens = try await idp.tokens(key: key)
            let answer = try await idp.getWithDPoP("/resource", token: tokens.accessToken, key: key)
            #expect(answer.json?["sub"] == "248289761001")
            #expect(answer.json?["resource"] == "ok")
        }
    }
}
