import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

/// Scenarios for DPoP (D1–D5, R3): the real engine against the test provider, which checks
/// every proof as RFC 9449 §4.3 says and binds codes and tokens to the proof key.
@Suite(.serialized) struct DPoPScenarios {
    /// A rig whose client binds its tokens with DPoP.
    static func rig(
        separateResourceServer: Bool = false, configure: @escaping @Sendable (inout TestProviderConfiguration) -> Void = { _ in },
        configureClient: @escaping (inout ClientConfiguration) -> Void = { _ in }
    ) async throws -> EngineRig {
        try await EngineRig(
            separateResourceServer: separateResourceServer, configure: configure,
            configureClient: { configuration in
                configuration.usesDPoP = true
                configureClient(&configuration)
            })
    }

    /// The RFC 7638 thumbprint of the key in a recorded request's proof header.
    static func proofThumbprint(_ request: RecordedRequest) throws -> String {
        let jws = try JWS(compact: try #require(request.headers["DPoP"]))
        return try JWK(json: try #require(jws.header["jwk"])).thumbprint()
    }

    @Test("D1 D2 D4 A3: a DPoP login against a provider requiring DPoP binds code and tokens to one new key")
    func fullLogin() async throws {
        let rig = try await Self.rig(configure: { $0.requireDPoP = true })
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            #expect(grant.tokenType == .dpop)
            let key = try #require(grant.dpopKey)
            let push = try #require(await rig.idp.provider.requests(to: .par).first)
            #expect(push.formValue("dpop_jkt") == key.thumbprint)
            #expect(try Self.proofThumbprint(push) == key.thumbprint)
            let tokenRequests = await rig.idp.provider.requests(to: .token)
            #expect(tokenRequests.count == 1)
            let exchange = try #require(tokenRequests.first)
            #expect(try Self.proofThumbprint(exchange) == key.thumbprint)
            #expect(exchange.dpopProofClaims["htm"] == "POST")
            #expect(exchange.dpopProofClaims["htu"] == rig.idp.issuer + "/token")
            #expect(exchange.dpopProofClaims["ath"] == nil)

            // The refresh and UserInfo use the grant's key; a second login makes a new one.
            let refreshed = try await rig.client.refresh(grant)
            #expect(refreshed.tokenType == .dpop)
            #expect(refreshed.dpopKey == key)
            let info = try await rig.client.userInfo(refreshed)
            #expect(info.subject == grant.claims?.subject)
            let userInfoRequest = try #require(await rig.idp.provider.requests(to: .userinfo).last)
            #expect(userInfoRequest.headers["Authorization"] == "DPoP \(refreshed.accessToken)")
            #expect(userInfoRequest.dpopProofClaims["ath"] == DPoPProof.accessTokenHash(refreshed.accessToken))
            let second = try await rig.client.login()
            #expect(second.dpopKey != nil)
            #expect(second.dpopKey != key)
        }
    }

    @Test("D4: without PAR the front channel carries dpop_jkt")
    func frontChannelBinding() async throws {
        let rig = try await Self.rig(configure: {
            $0.advertisePushedAuthorizationRequests = false
            $0.requireDPoP = true
        })
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            let key = try #require(grant.dpopKey)
            let opened = try #require(rig.browser.opened.first)
            #expect(opened.contains("dpop_jkt=\(key.thumbprint)"))
            #expect(await rig.idp.provider.requests(to: .par).isEmpty)
            #expect(grant.tokenType == .dpop)
        }
    }

    @Test("D3 R3: one nonce demand at the token endpoint costs exactly two token requests")
    func tokenNonceDemand() async throws {
        let rig = try await Self.rig(configure: {
            $0.advertisePushedAuthorizationRequests = false
            $0.requireDPoPNonce = true
        })
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            #expect(grant.tokenType == .dpop)
            let tokenRequests = await rig.idp.provider.requests(to: .token)
            #expect(tokenRequests.count == 2)
            #expect(tokenRequests.first?.dpopProofClaims["nonce"] == nil)
            #expect(tokenRequests.last?.dpopProofClaims["nonce"] == (await rig.idp.provider.currentAuthorizationServerNonce()))
            #expect(tokenRequests.first?.dpopProofClaims["jti"] != tokenRequests.last?.dpopProofClaims["jti"])
        }
    }

    @Test("D3 A3: the nonce demanded at PAR is carried to the token endpoint of the same origin")
    func pushNonceCarriesToExchange() async throws {
        let rig = try await Self.rig(configure: { $0.requireDPoPNonce = true })
        try await withRig(rig) { rig in
            _ = try await rig.client.login()
            #expect(await rig.idp.provider.requests(to: .par).count == 2)
            let tokenRequests = await rig.idp.provider.requests(to: .token)
            #expect(tokenRequests.count == 1)
            #expect(tokenRequests.first?.dpopProofClaims["nonce"] != nil)
        }
    }

    @Test("D3 R3 E1: a nonce demanded on every request ends as nonceLoop after exactly two token requests")
    func nonceLoop() async throws {
        let rig = try await Self.rig(configure: { $0.advertisePushedAuthorizationRequests = false })
        try await withRig(rig) { rig in
            await rig.idp.provider.arm(TestFaultRule(.token, .demandNonceForever, times: nil))
            await rig.expectFailure(category: "recoverable", cause: "nonceLoop")
            let tokenRequests = await rig.idp.provider.requests(to: .token)
            #expect(tokenRequests.count == 2)
            #expect(tokenRequests.last?.dpopProofClaims["nonce"] != nil)
        }
    }

    @Test("R3: an invalid_dpop_proof answer costs exactly one more token request, with a fresh jti")
    func invalidProofOnce() async throws {
        let rig = try await Self.rig(configure: { $0.requireDPoP = true })
        try await withRig(rig) { rig in
            await rig.idp.provider.arm(TestFaultRule(.token, .invalidDPoPProof))
            let grant = try await rig.client.login()
            #expect(grant.tokenType == .dpop)
            let tokenRequests = await rig.idp.provider.requests(to: .token)
            #expect(tokenRequests.count == 2)
            let jtis = tokenRequests.compactMap { $0.dpopProofClaims["jti"] }
            #expect(jtis.count == 2)
            #expect(Set(jtis).count == 2)
        }
    }

    @Test("D2 D3 R3: a resource request carries ath; the resource's nonce demand costs exactly one retry")
    func resourceNonceDemand() async throws {
        let rig = try await Self.rig(separateResourceServer: true, configure: { $0.resourceRequiresDPoPNonce = true })
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            let url = try #require(URL(string: rig.idp.resourceURL))
            let response = try await rig.client.send(HTTPRequest(url: url), grant: grant)
            #expect(response.status == 200)
            let resourceRequests = await rig.idp.provider.requests(to: .resource)
            #expect(resourceRequests.count == 2)
            #expect(resourceRequests.first?.dpopProofClaims["nonce"] == nil)
            #expect(resourceRequests.last?.dpopProofClaims["nonce"] != nil)
            for request in resourceRequests {
                #expect(request.dpopProofClaims["ath"] == DPoPProof.accessTokenHash(grant.accessToken))
                #expect(request.dpopProofClaims["htm"] == "GET")
                #expect(request.dpopProofClaims["htu"] == rig.idp.resourceURL)
                #expect(request.headers["Authorization"] == "DPoP \(grant.accessToken)")
            }
        }
    }

    @Test("D3: a nonce learned from the AS is never sent to the separate resource origin, and vice versa")
    func noncesStayWithTheirOrigin() async throws {
        let rig = try await Self.rig(separateResourceServer: true, configure: {
            $0.requireDPoPNonce = true
            $0.resourceRequiresDPoPNonce = true
        })
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            let asNonce = await rig.idp.provider.currentAuthorizationServerNonce()
            let url = try #require(URL(string: rig.idp.resourceURL))
            #expect(try await rig.client.send(HTTPRequest(url: url), grant: grant).status == 200)
            let resourceRequests = await rig.idp.provider.requests(to: .resource)
            #expect(resourceRequests.count == 2)
            #expect(resourceRequests.first?.dpopProofClaims["nonce"] == nil)
            let rsNonce = try #require(resourceRequests.last?.dpopProofClaims["nonce"])
            #expect(rsNonce != asNonce)

            await rig.idp.provider.clearRequestLog()
            _ = try await rig.client.refresh(grant)
            let refresh = try #require(await rig.idp.provider.requests(to: .token).first)
            #expect(refresh.dpopProofClaims["nonce"] == asNonce)
            #expect(await rig.idp.provider.requests(to: .token).count == 1)
            let snapshot = rig.client.dpopNonces.snapshot()
            #expect(snapshot.count == 2)
            #expect(Set(snapshot.values) == [asNonce, rsNonce])
        }
    }

    @Test("D5: a Bearer answer to a DPoP token request is providerUnsupported")
    func bearerRefused() async throws {
        let rig = try await Self.rig()
        try await withRig(rig) { rig in
            await rig.idp.provider.arm(TestFaultRule(.token, .bearerTokenType))
            await rig.expectFailure(category: "configuration", cause: "providerUnsupported")
        }
    }

    @Test("D5: with Bearer fallback allowed a Bearer answer is accepted and used as Bearer")
    func bearerFallback() async throws {
        let rig = try await Self.rig(configureClient: { $0.allowsBearerFallback = true })
        try await withRig(rig) { rig in
            await rig.idp.provider.arm(TestFaultRule(.token, .bearerTokenType))
            let grant = try await rig.client.login()
            #expect(grant.tokenType == .bearer)
            #expect(try #require(await rig.idp.provider.requests(to: .token).first).headers["DPoP"] != nil)
        }
    }

    @Test("D4 E11: a push refused with use_dpop_nonce but no nonce is sent again without a proof, still bound by dpop_jkt")
    func pushWithoutNonceQuirk() async throws {
        let rig = try await Self.rig(configure: { $0.requireDPoP = true })
        try await withRig(rig) { rig in
            await rig.idp.provider.arm(
                TestFaultRule(.par, .respond(status: 400, headers: ["Content-Type": "application/json"], body: #"{"error":"use_dpop_nonce"}"#)))
            let grant = try await rig.client.login()
            let key = try #require(grant.dpopKey)
            let pushes = await rig.idp.provider.requests(to: .par)
            #expect(pushes.count == 2)
            #expect(pushes.first?.headers["DPoP"] != nil)
            #expect(pushes.last?.headers["DPoP"] == nil)
            #expect(pushes.last?.formValue("dpop_jkt") == key.thumbprint)
            #expect(grant.tokenType == .dpop)
        }
    }
}
