import Foundation
import Synchronization
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

/// Scenarios for authorization (A1–A10, E9, E11, E12, L1): the real engine against the
/// test provider over loopback sockets, the browser played by the headless user agent.
@Suite(.serialized) struct AuthorizationScenarios {
    @Test("A1 A2 A4 A5 A6 A7 L1: a loopback login completes against the test provider")
    func fullLogin() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            #expect(grant.claims?.subject == TestUser().subject)
            #expect(grant.claims?.issuer == rig.idp.issuer)
            #expect(grant.refreshToken != nil)
            let opened = try #require(rig.browser.opened.first)
            #expect(opened.hasPrefix(rig.idp.issuer + "/authorize?"))
            let token = try #require(await rig.idp.provider.requests(to: .token).first)
            let redirectURI = try #require(token.formValue("redirect_uri"))
            #expect(redirectURI.hasPrefix("http://127.0.0.1:"))
            #expect(redirectURI.hasSuffix("/callback"))
            #expect(token.formValue("code_verifier")?.utf8.count == 43)
            #expect(await rig.idp.provider.requests(to: .token).count == 1)
        }
    }

    @Test("A3: the request is pushed when PAR is advertised; the browser gets client_id, request_uri and the pushed response_type, redirect_uri, scope and prompt")
    func pushedAuthorization() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            _ = try await rig.client.login()
            let pushes = await rig.idp.provider.requests(to: .par)
            #expect(pushes.count == 1)
            let opened = try #require(rig.browser.opened.first)
            let query = String(opened.split(separator: "?", maxSplits: 1).last ?? "")
            let fields = query.split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
            let names = fields.map { $0[0] }
            #expect(Array(names.prefix(5)) == ["client_id", "request_uri", "response_type", "redirect_uri", "scope"])
            #expect(names.dropFirst(5).allSatisfy { $0 == "prompt" } && names.count <= 6, "state, nonce, PKCE stay pushed")
            let values = Dictionary(fields.map { ($0[0], ($0.count > 1 ? $0[1] : "").removingPercentEncoding ?? "") }) { a, _ in a }
            for name in ["response_type", "redirect_uri", "scope", "prompt"] {
                #expect(values[name] == pushes.first?.formValue(name), "\(name) as pushed")
            }
            #expect(values["scope"]?.split(separator: " ").contains("openid") == true)
        }
    }

    @Test("A3: without PAR advertised the front channel carries PKCE S256, state and nonce")
    func frontChannel() async throws {
        let rig = try await EngineRig(configure: { $0.advertisePushedAuthorizationRequests = false })
        try await withRig(rig) { rig in
            _ = try await rig.client.login()
            let opened = try #require(rig.browser.opened.first)
            #expect(opened.contains("code_challenge_method=S256"))
            #expect(opened.contains("state="))
            #expect(opened.contains("nonce="))
            #expect(await rig.idp.provider.requests(to: .par).isEmpty)
        }
    }

    @Test("E11 A3: a rejected push is authorizationRejected and no browser opens")
    func rejectedPush() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            await rig.idp.provider.arm(TestFaultRule(.par, .oauthError("invalid_request")))
            await rig.expectFailure(category: "configuration", cause: "authorizationRejected")
            #expect(rig.browser.opened.isEmpty)
            #expect(await rig.idp.provider.requests(to: .token).isEmpty)
        }
    }

    @Test("A1 E4: a discovery document with another issuer is discoveryIssuerMismatch, before any browser")
    func discoveryIssuerMismatch() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            await rig.idp.provider.arm(TestFaultRule(.discovery, .wrongIssuer))
            await rig.expectFailure(category: "configuration", cause: "discoveryIssuerMismatch")
            #expect(rig.browser.opened.isEmpty)
        }
    }

    @Test("A5 E12: a wrong iss on the redirect is issuerMismatch and no token request is made")
    func redirectIssuerMismatch() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            await rig.idp.provider.arm(TestFaultRule(.authorize, .wrongRedirectIssuer))
            await rig.expectFailure(category: "configuration", cause: "issuerMismatch")
            #expect(await rig.idp.provider.requests(to: .token).isEmpty)
        }
    }

    @Test(
        "E9 A5: authorization errors map by code and no token request is made",
        arguments: [("access_denied", "authorizationDenied"), ("login_required", "interactionRequired")])
    func authorizationErrors(code: String, cause: String) async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            await rig.idp.provider.arm(TestFaultRule(.authorize, .oauthError(code)))
            await rig.expectFailure(category: "reauthenticate", cause: cause)
            #expect(await rig.idp.provider.requests(to: .token).isEmpty)
        }
    }

    @Test(
        "A7: an ID token that fails any check is idTokenRejected",
        arguments: [
            TestFault.badSignature, .algNone, .unknownSigningKey, .wrongNonce, .wrongAudience, .expiredIDToken,
            .wrongIDTokenIssuer, .wrongAccessTokenHash,
        ])
    func idTokenRejected(fault: TestFault) async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            await rig.idp.provider.arm(TestFaultRule(.token, fault))
            await rig.expectFailure(category: "configuration", cause: "idTokenRejected")
        }
    }

    @Test("A7: ES256 ID tokens validate too")
    func es256IDTokens() async throws {
        let rig = try await EngineRig(clientID: "versola-test-es256")
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            #expect(grant.claims?.audiences == ["versola-test-es256"])
        }
    }

    @Test("A7: after a key rotation an unknown kid refetches the key set once, and a refresh keeps iss, sub, aud")
    func keyRotation() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            #expect(await rig.idp.provider.requests(to: .jwks).count == 1)
            try await rig.idp.provider.rotateSigningKeys(retainPrevious: false)
            let refreshed = try await rig.client.refresh(grant)
            #expect(refreshed.claims?.subject == grant.claims?.subject)
            #expect(refreshed.refreshToken != grant.refreshToken)
            #expect(await rig.idp.provider.requests(to: .jwks).count == 2)
        }
    }

    @Test("E9: invalid_grant on refresh is grantRejected, whatever its description")
    func refreshInvalidGrant() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            await rig.idp.provider.arm(TestFaultRule(.token, .oauthError("invalid_grant")))
            do throws(VersolaError) {
                _ = try await rig.client.refresh(grant)
                Issue.record("a refused refresh succeeded")
            } catch {
                #expect(error == .reauthenticate(.grantRejected))
            }
        }
    }

    @Test("R4 A6: a code exchange answered with a 503 is not repeated")
    func exchangeNotRepeated() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            await rig.idp.provider.arm(TestFaultRule(.token, .respond(status: 503)))
            await rig.expectFailure(category: "recoverable", cause: "server")
            #expect(await rig.idp.provider.requests(to: .token).count == 1)
        }
    }

    @Test("A8: UserInfo with another sub is idTokenRejected; with the same sub it is returned")
    func userInfoSubject() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            let info = try await rig.client.userInfo(grant)
            #expect(info.subject == grant.claims?.subject)
            await rig.idp.provider.arm(TestFaultRule(.userinfo, .wrongUserInfoSubject))
            do throws(VersolaError) {
                _ = try await rig.client.userInfo(grant)
                Issue.record("a UserInfo answer for another subject was used")
            } catch {
                #expect(error.cause == "idTokenRejected")
            }
        }
    }

    @Test("A9: revocation sends the refresh token and the provider revokes the grant")
    func revocation() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            #expect(await rig.client.revoke(grant))
            let refreshToken = try #require(grant.refreshToken)
            #expect(await rig.idp.provider.familyWasRevoked(ofRefreshToken: refreshToken))
            do throws(VersolaError) {
                _ = try await rig.client.refresh(grant)
                Issue.record("a revoked refresh token still worked")
            } catch {
                #expect(error == .reauthenticate(.grantRejected))
            }
        }
    }

    @Test("E7: a cancelled login is userCancelled and makes no token request")
    func cancelledLogin() async throws {
        let rig = try await EngineRig(browserFollows: false)
        try await withRig(rig) { rig in
            let client = rig.client
            let login = Task { () async throws(VersolaError) -> Grant in try await client.login() }
            while rig.browser.opened.isEmpty { await Task.yield() }
            await client.cancelLogin()
            let result = await login.result
            #expect(throws: VersolaError.recoverable(.userCancelled)) { try result.get() }
            #expect(await rig.idp.provider.requests(to: .token).isEmpty)
        }
    }

    @Test("L2: a redirect pasted by the person completes the login")
    func pastedRedirect() async throws {
        let rig = try await EngineRig(browserFollows: false)
        try await withRig(rig) { rig in
            let client = rig.client
            let login = Task { () async throws(VersolaError) -> Grant in try await client.login() }
            while rig.browser.opened.isEmpty { await Task.yield() }
            let url = try #require(rig.browser.opened.first)
            // The person finishes in a browser elsewhere; the final redirect URL is pasted back.
            let final = try await HeadlessUserAgent(transport: StopAtLoopback()).complete(authorizationURL: url)
            let pasted = try #require(final.visited.last)
            #expect(await client.deliverRedirect(pasted))
            let grant = try await login.value
            #expect(grant.claims?.subject == TestUser().subject)
        }
    }

    @Test("E2 L1: without a browser the login still completes once the URL is opened elsewhere")
    func noBrowser() async throws {
        let rig = try await EngineRig(browserFollows: false, browserStarts: false)
        try await withRig(rig) { rig in
            let prompts = PromptLog()
            let client = rig.client
            let login = Task { () async throws(VersolaError) -> Grant in
                try await client.login(present: { prompt in prompts.append(prompt) })
            }
            while prompts.all.isEmpty { await Task.yield() }
            let prompt = try #require(prompts.all.first)
            #expect(prompt.browserOpened == false)
            _ = try await HeadlessUserAgent().complete(authorizationURL: prompt.url)
            _ = try await login.value
        }
    }
}
