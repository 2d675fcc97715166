import Foundation
import Testing
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

/// The provider's device authorization grant (RFC 8628), driven in-process on a hand-moved
/// clock: the answer's members, the verification page, and each poll answer.
@Suite struct DeviceAuthorizationTests {
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Asks for a device code; returns the answer's JSON.
    static func start(_ idp: ProviderHarness, form: [(String, String)]? = nil) async throws -> JSONValue {
        let answer = await idp.post(
            "/device_authorization", form: form ?? [("client_id", "versola-test"), ("scope", "openid offline_access")])
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.header("Cache-Control") == "no-store")
        return try #require(answer.json)
    }

    static func poll(_ idp: ProviderHarness, _ deviceCode: String, clientID: String = "versola-test") async -> HTTPServerAction {
        await idp.post(
            "/token", form: [("grant_type", grantType), ("device_code", deviceCode), ("client_id", clientID)])
    }

    @Test func answerCarriesCodesPagesLifetimeAndInterval() async throws {
        try await withProvider { idp in
            let answer = try await Self.start(idp)
            let userCode = try #require(answer["user_code"]?.string)
            #expect(userCode.count == 9 && userCode.contains("-"))
            #expect((answer["device_code"]?.string?.count ?? 0) >= 40)
            #expect(answer["verification_uri"]?.string == idp.issuer + "/device")
            #expect(answer["verification_uri_complete"]?.string == idp.issuer + "/device?user_code=" + userCode)
            #expect(answer["expires_in"] == 600)
            #expect(answer["interval"] == 5)
        }
        try await withProvider(configure: {
            $0.deviceInterval = nil
            $0.deviceVerificationURIComplete = false
        }) { idp in
            let answer = try await Self.start(idp)
            #expect(answer["interval"] == nil)
            #expect(answer["verification_uri_complete"] == nil)
        }
    }

    @Test func requestWithoutOpenIDOrFromAnUnknownClientIsRefused() async throws {
        try await withProvider { idp in
            let noOpenID = await idp.post("/device_authorization", form: [("client_id", "versola-test"), ("scope", "profile")])
            #expect(noOpenID.oauthError == "invalid_scope")
            let stranger = await idp.post("/device_authorization", form: [("client_id", "nobody"), ("scope", "openid")])
            #expect(stranger.status == 401)
            #expect(stranger.oauthError == "invalid_client")
        }
    }

    @Test func pendingSlowDownApprovalThenSpent() async throws {
        try await withProvider { idp in
            let answer = try await Self.start(idp)
            let deviceCode = try #require(answer["device_code"]?.string)
            idp.clock.advance(by: 5)
            #expect(await Self.poll(idp, deviceCode).oauthError == "authorization_pending")
            idp.clock.advance(by: 2)
            #expect(await Self.poll(idp, deviceCode).oauthError == "slow_down", "2 s after the last poll")
            idp.clock.advance(by: 5)
            #expect(await Self.poll(idp, deviceCode, clientID: "versola-test-es256").oauthError == "invalid_grant")
            // The person opens the page with the code; it shows the sign-in form, then approves.
            let page = await idp.get("/device", query: [("user_code", try #require(answer["user_code"]?.string).lowercased())])
            let ticket = try #require(ProviderHarness.ticket(in: page))
            let approved = await idp.post(
                "/device", form: [("ticket", ticket), ("username", "alice"), ("password", "wonderland"), ("decision", "allow")])
            #expect(approved.status == 200)
            #expect(approved.text.contains("return to your device"))
            idp.clock.advance(by: 5)
            let tokens = await Self.poll(idp, deviceCode)
            #expect(tokens.status == 200, "\(tokens.text)")
            #expect(tokens.json?["token_type"] == "Bearer")
            let idToken = try #require(tokens.json?["id_token"]?.string)
            #expect(try ProviderHarness.unverifiedPayload(idToken)["nonce"] == nil)
            idp.clock.advance(by: 5)
            #expect(await Self.poll(idp, deviceCode).oauthError == "invalid_grant", "a device code is used once")
            #expect(await idp.get("/device", query: [("user_code", "XXXX-XXXX")]).status == 400)
        }
    }

    @Test func deniedAndExpiredCodes() async throws {
        try await withProvider { idp in
            let denied = try await Self.start(idp)
            let page = await idp.get("/device", query: [("user_code", try #require(denied["user_code"]?.string))])
            let ticket = try #require(ProviderHarness.ticket(in: page))
            #expect(await idp.post("/device", form: [("ticket", ticket), ("decision", "deny")]).status == 200)
            idp.clock.advance(by: 5)
            #expect(await Self.poll(idp, try #require(denied["device_code"]?.string)).oauthError == "access_denied")
            let expiring = try await Self.start(idp)
            idp.clock.advance(by: 600)
            #expect(await Self.poll(idp, try #require(expiring["device_code"]?.string)).oauthError == "expired_token")
        }
    }

    @Test func autoLoginApprovesAtThePageAndADPoPRequestBindsTheTokens() async throws {
        try await withProvider(configure: { $0.autoLogin = true }) { idp in
            let key = try ClientDPoPKey()
            let proof = try key.proof("POST", idp.url("/device_authorization"), at: idp.clock.now)
            let answer = await idp.post(
                "/device_authorization", form: [("client_id", "versola-test"), ("scope", "openid")], headers: ["DPoP": proof])
            let json = try #require(answer.json)
            let deviceCode = try #require(json["device_code"]?.string)
            let page = await idp.get("/device", query: [("user_code", try #require(json["user_code"]?.string))])
            #expect(page.status == 200 && page.text.contains("return to your device"))
            idp.clock.advance(by: 5)
            #expect(await Self.poll(idp, deviceCode).oauthError == "invalid_dpop_proof", "a bound code needs a proof")
            idp.clock.advance(by: 5)
            let tokens = await idp.post(
                "/token", form: [("grant_type", Self.grantType), ("device_code", deviceCode), ("client_id", "versola-test")],
                headers: ["DPoP": try idp.tokenProof(key)])
            #expect(tokens.status == 200, "\(tokens.text)")
            #expect(tokens.json?["token_type"] == "DPoP")
        }
    }
}
