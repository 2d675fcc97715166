import Testing
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

/// Pushed authorization requests, RFC 9126 (A3, D4, E11).
@Suite struct PushedAuthorizationTests {
    static func push(_ idp: ProviderHarness, _ request: AuthorizationRequest, dpop: String? = nil) async
        -> HTTPServerAction
    {
        var headers = HTTPHeaders()
        if let dpop { headers.add("DPoP", dpop) }
        return await idp.post("/par", form: request.parameters, headers: headers)
    }

    static func requestURI(of answer: HTTPServerAction) throws -> String {
        try #require(answer.status == 201, "push refused: \(answer.text)")
        return try #require(answer.json?["request_uri"]?.string)
    }

    /// The browser leg of a pushed request: only `client_id` and `request_uri`.
    static func authorize(_ idp: ProviderHarness, clientID: String = "versola-test", requestURI: String) async
        -> HTTPServerAction
    {
        await idp.get("/authorize", query: [("client_id", clientID), ("request_uri", requestURI)])
    }

    @Test func pushedRequestCompletesTheFlow() async throws {
        try await withProvider(configure: { $0.autoLogin = true }) { idp in
            let request = AuthorizationRequest()
            let pushed = await Self.push(idp, request)
            #expect(pushed.status == 201)
            #expect(pushed.header("Cache-Control") == "no-store")
            #expect(pushed.json?["expires_in"] == 90)
            let requestURI = try Self.requestURI(of: pushed)
            #expect(requestURI.hasPrefix("urn:ietf:params:oauth:request_uri:"))

            let redirect = await Self.authorize(idp, requestURI: requestURI)
            #expect(redirect.redirectBase == request.redirectURI)
            #expect(redirect.redirectParameters["state"] == request.state)
            #expect(redirect.redirectParameters["iss"] == idp.issuer)
            let code = try #require(redirect.redirectParameters["code"])
            let tokens = try ProviderHarness.tokens(from: await idp.exchange(code: code, for: request))
            #expect(try await idp.verifiedClaims(of: tokens.idToken).claims["nonce"]?.string == request.nonce)
        }
    }

    @Test func pushedRequestShowsTheLoginFormWithoutAutoLogin() async throws {
        try await withProvider { idp in
            let requestURI = try Self.requestURI(of: await Self.push(idp, AuthorizationRequest()))
            let page = await Self.authorize(idp, requestURI: requestURI)
            let ticket = try #require(ProviderHarness.ticket(in: page))
            #expect(await idp.submitLogin(ticket: ticket).redirectParameters["code"] != nil)
        }
    }

    @Test func requestURIIsSingleUse() async throws {
        try await withProvider(configure: { $0.autoLogin = true }) { idp in
            let requestURI = try Self.requestURI(of: await Self.push(idp, AuthorizationRequest()))
            #expect(await Self.authorize(idp, requestURI: requestURI).status == 302)
            let again = await Self.authorize(idp, requestURI: requestURI)
            #expect(again.status == 400)
            #expect(again.location == nil)
        }
    }

    @Test func requestURIExpires() async throws {
        try await withProvider(configure: { $0.autoLogin = true }) { idp in
            let early = try Self.requestURI(of: await Self.push(idp, AuthorizationRequest()))
            let late = try Self.requestURI(of: await Self.push(idp, AuthorizationRequest()))
            idp.clock.advance(by: 89)
            #expect(await Self.authorize(idp, requestURI: early).status == 302)
            idp.clock.advance(by: 2)
            let expired = await Self.authorize(idp, requestURI: late)
            #expect(expired.status == 400)
            #expect(expired.location == nil)
        }
    }

    @Test func requestURIBelongsToItsClient() async throws {
        try await withProvider(configure: { $0.autoLogin = true }) { idp in
            let requestURI = try Self.requestURI(of: await Self.push(idp, AuthorizationRequest()))
            let stolen = await Self.authorize(idp, clientID: "versola-test-es256", requestURI: requestURI)
            #expect(stolen.status == 400)
            #expect(stolen.location == nil)
            #expect(await Self.authorize(idp, requestURI: "urn:ietf:params:oauth:request_uri:made-up").status == 400)
        }
    }

    // A3: a provider that requires PAR refuses the front channel, and accepts a push.
    @Test func requirePARRefusesFrontChannelRequests() async throws {
        try await withProvider(configure: {
            $0.autoLogin = true
            $0.requirePushedAuthorizationRequests = true
        }) { idp in
            let request = AuthorizationRequest()
            AuthorizationRefusalTests.expectErrorRedirect(
                await idp.startAuthorization(request), "invalid_request", request, issuer: idp.issuer)
            let requestURI = try Self.requestURI(of: await Self.push(idp, request))
            #expect(await Self.authorize(idp, requestURI: requestURI).redirectParameters["code"] != nil)
        }
    }

    // E11: a bad push is answered at once as JSON, never deferred to the browser.
    @Test func badPushesAreRefusedAsJSON() async throws {
        try await withProvider { idp in
            var unknownClient = AuthorizationRequest()
            unknownClient.clientID = "intruder"
            let unknown = await Self.push(idp, unknownClient)
            #expect(unknown.status == 401)
            #expect(unknown.oauthError == "invalid_client")

            var plain = AuthorizationRequest()
            plain.overrides["code_challenge_method"] = "plain"
            #expect(await Self.push(idp, plain).oauthError == "invalid_request")

            var redirect = AuthorizationRequest()
            redirect.redirectURI = "https://attacker.example/cb"
            let badRedirect = await Self.push(idp, redirect)
            #expect(badRedirect.status == 400)
            #expect(badRedirect.oauthError == "invalid_request")

            var scope = AuthorizationRequest()
            scope.scope = "profile"
            #expect(await Self.push(idp, scope).oauthError == "invalid_scope")

            var nested = AuthorizationRequest()
            nested.extra = [("request_uri", "urn:ietf:params:oauth:request_uri:x")]
            #expect(await Self.push(idp, nested).oauthError == "invalid_request")

            #expect(await idp.get("/par").status == 405)
        }
    }

    // D4: a push with a DPoP proof binds the code to that key (RFC 9449 §10.1).
    @Test func pushWithAProofBindsTheCodeToTheKey() async throws {
        try await withProvider(configure: { $0.autoLogin = true }) { idp in
            let keyA = try ClientDPoPKey()
            let keyB = try ClientDPoPKey()
            let request = AuthorizationRequest()
            func boundCode() async throws -> String {
                let proof = try keyA.proof("POST", idp.url("/par"), at: idp.clock.now)
                let requestURI = try Self.requestURI(of: await Self.push(idp, request, dpop: proof))
                return try #require(await Self.authorize(idp, requestURI: requestURI).redirectParameters["code"])
            }
            let withOtherKey = await idp.exchange(code: try await boundCode(), for: request, dpop: try idp.tokenProof(keyB))
            #expect(withOtherKey.oauthError == "invalid_grant")

            let withoutProof = await idp.exchange(code: try await boundCode(), for: request)
            #expect(withoutProof.oauthError == "invalid_dpop_proof")

            let answer = await idp.exchange(code: try await boundCode(), for: request, dpop: try idp.tokenProof(keyA))
            #expect(try ProviderHarness.tokens(from: answer).tokenType == "DPoP")
        }
    }

    @Test func pushWithAProofAndADifferentDPoPJKTIsRefused() async throws {
        try await withProvider { idp in
            var request = AuthorizationRequest()
            request.extra = [("dpop_jkt", try ClientDPoPKey().thumbprint)]
            let proof = try ClientDPoPKey().proof("POST", idp.url("/par"), at: idp.clock.now)
            #expect(await Self.push(idp, request, dpop: proof).oauthError == "invalid_request")
        }
    }

    @Test func pushWithABadProofIsRefused() async throws {
        try await withProvider { idp in
            let proof = try ClientDPoPKey().proof("POST", idp.url("/token"), at: idp.clock.now)
            let answer = await Self.push(idp, AuthorizationRequest(), dpop: proof)
            #expect(answer.status == 400)
            #expect(answer.oauthError == "invalid_dpop_proof")
        }
    }
}
