import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

/// Scenarios for the provider behaviours met in interop runs (Conformance/interop/glewlwyd.md):
/// the test provider is made to answer the way glewlwyd does, and the engine must still
/// complete the flow or fail in the right category.
@Suite(.serialized) struct ProviderQuirkScenarios {
    @Test("D4 E11: a PAR endpoint refusing every proof with 403 invalid_dpop_proof gets the request pushed with dpop_jkt alone")
    func pushWithoutProof() async throws {
        let rig = try await DPoPScenarios.rig()
        try await withRig(rig) { rig in
            let refusal = #"{"error":"invalid_dpop_proof","error_description":"Invalid DPoP"}"#
            await rig.idp.provider.arm(TestFaultRule(.par, .respond(status: 403, body: refusal), times: 2))
            let grant = try await rig.client.login()
            let key = try #require(grant.dpopKey)
            let pushes = await rig.idp.provider.requests(to: .par)
            #expect(pushes.count == 3, "the refused push, its one retry with a fresh proof, the push without a proof")
            #expect(pushes.prefix(2).allSatisfy { $0.headers["DPoP"] != nil })
            let last = try #require(pushes.last)
            #expect(last.headers["DPoP"] == nil)
            #expect(last.formValue("dpop_jkt") == key.thumbprint)
            let exchange = try #require(await rig.idp.provider.requests(to: .token).first)
            #expect(try DPoPScenarios.proofThumbprint(exchange) == key.thumbprint)
            #expect(grant.tokenType == .dpop)
        }
    }

    @Test("D3: a 403 use_dpop_nonce from the token endpoint is a nonce demand like a 400")
    func forbiddenNonceDemand() async throws {
        let rig = try await DPoPScenarios.rig(configure: { $0.advertisePushedAuthorizationRequests = false })
        try await withRig(rig) { rig in
            let demand = #"{"error":"use_dpop_nonce"}"#
            await rig.idp.provider.arm(
                TestFaultRule(.token, .respond(status: 403, headers: ["DPoP-Nonce": "n-403"], body: demand)))
            _ = try await rig.client.login()
            let tokenRequests = await rig.idp.provider.requests(to: .token)
            #expect(tokenRequests.count == 2)
            #expect(tokenRequests.last?.dpopProofClaims["nonce"] == "n-403")
        }
    }

    @Test("E9 S7: a refresh refused with a bare 400 (no OAuth error body) is grantRejected and signs out")
    func bareBadRequestOnRefresh() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            await rig.idp.provider.arm(TestFaultRule(.token, .respond(status: 400)))
            do throws(VersolaError) {
                _ = try await rig.session.accessToken(forceRefresh: true)
                Issue.record("a refused refresh succeeded")
            } catch {
                #expect(error == .reauthenticate(.grantRejected))
            }
            #expect(rig.session.state == .unauthenticated)
            #expect(await rig.idp.provider.requests(to: .token).count == 2, "the exchange and one refresh, not repeated")
        }
    }

    @Test("E8 S7 T5: a proxy's HTML 400 to a refresh is recoverable(server) and keeps the session")
    func proxyPageOnRefresh() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let stored = try await rig.storage.store.load()?.refreshToken
            let page = "<html><head><title>400 Bad Request</title></head><body><center>nginx</center></body></html>"
            await rig.idp.provider.arm(
                TestFaultRule(.token, .respond(status: 400, headers: ["Content-Type": "text/html"], body: page)))
            do throws(VersolaError) {
                _ = try await rig.session.accessToken(forceRefresh: true)
                Issue.record("a refresh answered by an error page succeeded")
            } catch {
                guard case .recoverable(.server(let failure)) = error else {
                    Issue.record("expected recoverable(server), got \(error)")
                    return
                }
                #expect(failure.status == 400)
            }
            #expect(rig.session.state == .authenticated)
            #expect(try await rig.storage.store.load()?.refreshToken == stored, "the refresh token is kept")
            // The page was the proxy's, not the provider's: the next refresh goes through.
            #expect(try await rig.session.accessToken(forceRefresh: true).isEmpty == false)
        }
    }

    @Test("E9 S7: a refresh refused with invalid_request naming the refresh token (idpyoidc) is grantRejected and signs out")
    func inactiveRefreshTokenOnRefresh() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let body = #"{"error":"invalid_request","error_description":"Refresh token inactive"}"#
            await rig.idp.provider.arm(TestFaultRule(.token, .respond(status: 400, body: body)))
            do throws(VersolaError) {
                _ = try await rig.session.accessToken(forceRefresh: true)
                Issue.record("a refused refresh succeeded")
            } catch {
                #expect(error == .reauthenticate(.grantRejected))
            }
            #expect(rig.session.state == .unauthenticated)
            #expect(await rig.idp.provider.requests(to: .token).count == 2, "the exchange and one refresh, not repeated")
        }
    }

    @Test("E9: a refresh refused with any other invalid_request stays a configuration error and keeps the session")
    func otherInvalidRequestOnRefresh() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let body = #"{"error":"invalid_request","error_description":"Expected DPoP header, none found"}"#
            await rig.idp.provider.arm(TestFaultRule(.token, .respond(status: 400, body: body)))
            do throws(VersolaError) {
                _ = try await rig.session.accessToken(forceRefresh: true)
                Issue.record("a refused refresh succeeded")
            } catch {
                guard case .configuration = error else {
                    Issue.record("expected a configuration error, got \(error)")
                    return
                }
            }
            #expect(rig.session.state != .unauthenticated)
        }
    }

    @Test("A9: a revocation answered 401 is sent once more, authenticated with the grant's access token")
    func revocationAuthenticatedAfter401() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            await rig.idp.provider.arm(TestFaultRule(.revocation, .respond(status: 401)))
            #expect(await rig.client.revoke(grant))
            let revocations = await rig.idp.provider.requests(to: .revocation)
            #expect(revocations.count == 2)
            #expect(revocations.first?.headers["Authorization"] == nil)
            #expect(revocations.last?.headers["Authorization"] == "Bearer \(grant.accessToken)")
            #expect(revocations.last?.formValue("token") == grant.refreshToken)
        }
    }

    @Test("A9: without a live access token, a revocation answered 401 gets one by a refresh and revokes the rotated token")
    func revocationRefreshesForAnAccessToken() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            var grant = try await rig.client.login()
            grant.accessToken = ""
            await rig.idp.provider.arm(TestFaultRule(.revocation, .respond(status: 401), times: 2))
            #expect(await rig.client.revoke(grant))
            let tokenRequests = await rig.idp.provider.requests(to: .token)
            #expect(tokenRequests.count == 2, "the exchange and the one refresh")
            let revocations = await rig.idp.provider.requests(to: .revocation)
            #expect(revocations.count == 3, "plain (401), after the refresh plain again (401), then authenticated")
            let last = try #require(revocations.last)
            #expect(last.headers["Authorization"]?.hasPrefix("Bearer ") == true)
            #expect(last.formValue("token") != grant.refreshToken, "the refresh token the refresh rotated in")
        }
    }

    @Test("A9: a revocation answered 401 without any way to authenticate is unconfirmed after one request")
    func revocationUnauthenticatedGivesUp() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            var grant = try await rig.client.login()
            grant.accessToken = ""
            grant.refreshToken = nil
            #expect(await rig.client.revoke(grant) == false, "nothing to revoke")
            grant = try await rig.client.login()
            await rig.idp.provider.arm(TestFaultRule(.revocation, .respond(status: 401), times: nil))
            #expect(await rig.client.revoke(grant) == false)
            #expect(await rig.idp.provider.requests(to: .revocation).count == 2)
        }
    }
}
