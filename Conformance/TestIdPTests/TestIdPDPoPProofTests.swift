import Testing
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

/// Every check of RFC 9449 §4.3, each failing on its own, at the token endpoint and at the
/// resource (D2).
@Suite struct TestIdPDPoPProofTests {
    static func headers(_ values: [String], authorization: String? = nil) -> HTTPHeaders {
        var headers = HTTPHeaders()
        if let authorization { headers.add("Authorization", authorization) }
        for value in values { headers.add("DPoP", value) }
        return headers
    }

    static func exchange(_ idp: ProviderHarness, code: String, _ request: AuthorizationRequest, proofs: [String]) async
        -> HTTPServerAction
    {
        await idp.post(
            "/token",
            form: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", request.redirectURI),
                ("client_id", request.clientID), ("code_verifier", request.pkce.verifier),
            ], headers: headers(proofs))
    }

    @Test(arguments: ProofFlaw.allCases)
    func flawedProofIsRefusedAtTheTokenEndpoint(flaw: ProofFlaw) async throws {
        try await withProvider { idp in
            let key = try ClientDPoPKey()
            let request = AuthorizationRequest()
            let code = try await idp.code(for: request)
            let flawed = try flaw.headerValues(key: key, method: "POST", url: idp.url("/token"), now: idp.clock.now)
            let refused = await Self.exchange(idp, code: code, request, proofs: flawed)
            #expect(refused.status == 400)
            #expect(refused.oauthError == "invalid_dpop_proof")
            // The same exchange with a correct proof succeeds: the flaw alone was refused,
            // and a refused proof did not spend the code.
            let accepted = await idp.exchange(code: code, for: request, dpop: try idp.tokenProof(key))
            #expect(accepted.status == 200)
        }
    }

    @Test(arguments: ProofFlaw.allCases)
    func flawedProofIsRefusedAtTheResource(flaw: ProofFlaw) async throws {
        try await withProvider { idp in
            let key = try ClientDPoPKey()
            let tokens = try await idp.tokens(key: key)
            let flawed = try flaw.headerValues(
                key: key, method: "GET", url: idp.url("/resource"), now: idp.clock.now, accessToken: tokens.accessToken)
            let refused = await idp.get(
                "/resource", headers: Self.headers(flawed, authorization: "DPoP " + tokens.accessToken))
            #expect(refused.status == 401)
            let challenge = try #require(AuthenticateChallenge(refused.header("WWW-Authenticate")))
            #expect(challenge.scheme == "DPoP")
            #expect(challenge.parameters["error"] == "invalid_dpop_proof")
            #expect(challenge.parameters["algs"]?.contains("ES256") == true)
            #expect(try await idp.getWithDPoP("/resource", token: tokens.accessToken, key: key).status == 200)
        }
    }

    @Test(arguments: ProofVariation.allCases)
    func allowedVariationsAreAccepted(variation: ProofVariation) async throws {
        try await withProvider { idp in
            let key = try ClientDPoPKey()
            let request = AuthorizationRequest()
            let code = try await idp.code(for: request)
            let proof = try variation.proof(key: key, method: "POST", url: idp.url("/token"), now: idp.clock.now)
            let answer = await idp.exchange(code: code, for: request, dpop: proof)
            #expect(answer.status == 200, "\(answer.text)")

            let tokens = try ProviderHarness.tokens(from: answer)
            let resourceProof = try variation.proof(
                key: key, method: "GET", url: idp.url("/resource"), now: idp.clock.now, accessToken: tokens.accessToken)
            #expect(await idp.getProtected("/resource", scheme: "DPoP", token: tokens.accessToken, dpop: resourceProof).status == 200)
        }
    }

    // §11.1: a proof's jti is accepted once.
    @Test func replayedProofIsRefused() async throws {
        try await withProvider { idp in
            let key = try ClientDPoPKey()
            let request = AuthorizationRequest()
            let proof = try idp.tokenProof(key)
            let first = await idp.exchange(code: try await idp.code(for: request), for: request, dpop: proof)
            #expect(first.status == 200)
            let secondCode = try await idp.code(for: request)
            let replay = await idp.exchange(code: secondCode, for: request, dpop: proof)
            #expect(replay.oauthError == "invalid_dpop_proof")
            // Another proof with the same jti but otherwise fresh is a replay too.
            let sameID = try key.proof("POST", idp.url("/token"), at: idp.clock.now, jti: "fixed-jti")
            #expect(await idp.exchange(code: secondCode, for: request, dpop: sameID).status == 200)
            let thirdCode = try await idp.code(for: request)
            let sameIDAgain = try key.proof("POST", idp.url("/token"), at: idp.clock.now, jti: "fixed-jti")
            #expect(await idp.exchange(code: thirdCode, for: request, dpop: sameIDAgain).oauthError == "invalid_dpop_proof")

            let tokens = try ProviderHarness.tokens(from: first)
            let resourceProof = try key.proof("GET", idp.url("/resource"), at: idp.clock.now, accessToken: tokens.accessToken)
            #expect(await idp.getProtected("/resource", scheme: "DPoP", token: tokens.accessToken, dpop: resourceProof).status == 200)
            let replayed = await idp.getProtected("/resource", scheme: "DPoP", token: tokens.accessToken, dpop: resourceProof)
            #expect(replayed.status == 401)
            #expect(AuthenticateChallenge(replayed.header("WWW-Authenticate"))?.parameters["error"] == "invalid_dpop_proof")
        }
    }

    // §4.3 step 11: at the resource the proof must carry ath, the hash of that token.
    @Test func resourceProofNeedsTheRightAth() async throws {
        try await withProvider { idp in
            let key = try ClientDPoPKey()
            let tokens = try await idp.tokens(key: key)
            let other = try await idp.tokens(key: key)
            let cases: [(String, String)] = [
                ("missing", try key.proof("GET", idp.url("/resource"), at: idp.clock.now)),
                ("other token", try key.proof("GET", idp.url("/resource"), at: idp.clock.now, accessToken: other.accessToken)),
            ]
            for (label, proof) in cases {
                let refused = await idp.getProtected("/resource", scheme: "DPoP", token: tokens.accessToken, dpop: proof)
                #expect(refused.status == 401, "\(label)")
                #expect(AuthenticateChallenge(refused.header("WWW-Authenticate"))?.parameters["error"] == "invalid_dpop_proof")
            }
        }
    }

    // Without a proof where one is required.
    @Test func missingProofIsRefused() async throws {
        try await withProvider { idp in
            let key = try ClientDPoPKey()
            let tokens = try await idp.tokens(key: key)
            let refused = await idp.getProtected("/resource", scheme: "DPoP", token: tokens.accessToken)
            #expect(refused.status == 401)
            #expect(AuthenticateChallenge(refused.header("WWW-Authenticate"))?.parameters["error"] == "invalid_dpop_proof")
        }
        try await withProvider(configure: { $0.requireDPoP = true }) { idp in
            let request = AuthorizationRequest()
            let code = try await idp.code(for: request)
            #expect(await idp.exchange(code: code, for: request).oauthError == "invalid_dpop_proof")
            #expect(await idp.exchange(code: code, for: request, dpop: try idp.tokenProof(try ClientDPoPKey())).status == 200)
        }
    }
}
