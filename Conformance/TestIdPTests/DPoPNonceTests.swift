import Testing
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

/// Server-provided DPoP nonces, RFC 9449 §8 and §9 (D3).
@Suite struct DPoPNonceTests {
    @Test func tokenEndpointDemandsItsNonceAndAcceptsIt() async throws {
        try await withProvider(configure: { $0.requireDPoPNonce = true }) { idp in
            let key = try ClientDPoPKey()
            let request = AuthorizationRequest()
            let code = try await idp.code(for: request)

            let demand = await idp.exchange(code: code, for: request, dpop: try idp.tokenProof(key))
            #expect(demand.status == 400)
            #expect(demand.oauthError == "use_dpop_nonce")
            let nonce = try #require(demand.header("DPoP-Nonce"))
            #expect(nonce == (await idp.provider.currentAuthorizationServerNonce()))

            let wrong = await idp.exchange(code: code, for: request, dpop: try idp.tokenProof(key, nonce: nonce + "x"))
            #expect(wrong.oauthError == "use_dpop_nonce")

            let accepted = await idp.exchange(code: code, for: request, dpop: try idp.tokenProof(key, nonce: nonce))
            #expect(accepted.status == 200)
            #expect(accepted.header("DPoP-Nonce") != nil)
        }
    }

    @Test func resourceDemandsItsNonceAndAcceptsIt() async throws {
        try await withProvider(configure: { $0.resourceRequiresDPoPNonce = true }) { idp in
            let key = try ClientDPoPKey()
            let tokens = try await idp.tokens(key: key)
            let demand = try await idp.getWithDPoP("/resource", token: tokens.accessToken, key: key)
            #expect(demand.status == 401)
            let challenge = try #require(AuthenticateChallenge(demand.header("WWW-Authenticate")))
            #expect(challenge.scheme == "DPoP")
            #expect(challenge.parameters["error"] == "use_dpop_nonce")
            let nonce = try #require(demand.header("DPoP-Nonce"))
            // The resource's nonce is its own, not the authorization server's.
            #expect(nonce != (await idp.provider.currentAuthorizationServerNonce()))

            let accepted = try await idp.getWithDPoP("/resource", token: tokens.accessToken, key: key, nonce: nonce)
            #expect(accepted.status == 200)
            #expect(accepted.header("DPoP-Nonce") != nil)
        }
    }

    // D3: demandNonceForever answers use_dpop_nonce with a fresh nonce every time.
    @Test func demandNonceForeverNeverAccepts() async throws {
        try await withProvider { idp in
            let key = try ClientDPoPKey()
            let request = AuthorizationRequest()
            let code = try await idp.code(for: request)
            await idp.provider.arm(TestFaultRule(.token, .demandNonceForever, times: nil))
            var nonce: String?
            var seen: Set<String> = []
            for _ in 0..<3 {
                let demand = await idp.exchange(code: code, for: request, dpop: try idp.tokenProof(key, nonce: nonce))
                #expect(demand.oauthError == "use_dpop_nonce")
                let fresh = try #require(demand.header("DPoP-Nonce"))
                #expect(seen.insert(fresh).inserted)
                nonce = fresh
            }
            await idp.provider.clearFaults()
            #expect(await idp.exchange(code: code, for: request, dpop: try idp.tokenProof(key)).status == 200)
        }
    }

    @Test func demandNonceForeverAtTheResource() async throws {
        try await withProvider { idp in
            let key = try ClientDPoPKey()
            let tokens = try await idp.tokens(key: key)
            await idp.provider.arm(TestFaultRule(.resource, .demandNonceForever, times: nil))
            var nonce: String?
            for _ in 0..<3 {
                let demand = try await idp.getWithDPoP("/resource", token: tokens.accessToken, key: key, nonce: nonce)
                #expect(demand.status == 401)
                #expect(AuthenticateChallenge(demand.header("WWW-Authenticate"))?.parameters["error"] == "use_dpop_nonce")
                let fresh = try #require(demand.header("DPoP-Nonce"))
                #expect(fresh != nonce)
                nonce = fresh
            }
        }
    }

    @Test func requestsWithoutAProofAreNotAskedForANonce() async throws {
        try await withProvider { idp in
            await idp.provider.arm(TestFaultRule(.token, .demandNonceForever, times: nil))
            // A Bearer client sends no proof: the nonce fault does not concern it.
            let tokens = try await idp.tokens()
            #expect(tokens.tokenType == "Bearer")
        }
    }
}
