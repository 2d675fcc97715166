import Testing
import VersolaHTTP
import VersolaTestIdP

/// The request log scenarios assert with (E12: "no token request was made").
@Suite struct RequestLogTests {
    @Test func logRecordsEndpointMethodTargetHeadersBodyAndTime() async throws {
        try await withProvider { idp in
            let request = AuthorizationRequest()
            let code = try await idp.code(for: request)
            let key = try ClientDPoPKey()
            _ = await idp.exchange(code: code, for: request, dpop: try idp.tokenProof(key))

            let all = await idp.provider.requests()
            #expect(all.map(\.endpoint) == [.authorize, .authorize, .token])
            #expect(all.map(\.method) == ["GET", "POST", "POST"])
            #expect(all[0].target.hasPrefix("/authorize?response_type=code&client_id=versola-test"))

            let tokenRequests = await idp.provider.requests(to: .token)
            let exchange = try #require(tokenRequests.first)
            #expect(tokenRequests.count == 1)
            #expect(exchange.target == "/token")
            #expect(exchange.formValue("grant_type") == "authorization_code")
            #expect(exchange.formValue("code") == code)
            #expect(exchange.formValue("redirect_uri") == request.redirectURI)
            #expect(String(decoding: exchange.body, as: UTF8.self).contains("code_verifier="))
            #expect(exchange.headers["Content-Type"] == "application/x-www-form-urlencoded")
            #expect(exchange.receivedAt == idp.clock.now)
            #expect(exchange.dpopProofClaims["htm"] == "POST")
            #expect(exchange.dpopProofClaims["htu"] == idp.url("/token"))
            #expect(await idp.provider.requests(to: .userinfo).isEmpty)
        }
    }

    @Test func unknownPathsAreLoggedWithoutAnEndpoint() async throws {
        try await withProvider { idp in
            _ = await idp.get("/favicon.ico")
            let entries = await idp.provider.requests()
            #expect(entries.count == 1)
            #expect(entries.first?.endpoint == nil)
            #expect(entries.first?.target == "/favicon.ico")
            #expect(entries.first?.dpopProofClaims.isEmpty == true)
        }
    }

    @Test func clearingForgetsEverything() async throws {
        try await withProvider { idp in
            _ = await idp.get("/jwks")
            await idp.provider.clearRequestLog()
            #expect(await idp.provider.requests().isEmpty)
        }
    }

    @Test func adminListsTheLogWithoutBodies() async throws {
        try await withProvider { idp in
            _ = await idp.post("/token", form: [("grant_type", "refresh_token"), ("refresh_token", "secret-value")])
            let answer = await idp.get("/_admin/requests")
            let entries = try #require(answer.json?["requests"]?.array)
            #expect(entries.first?["endpoint"] == "token")
            #expect(entries.first?["method"] == "POST")
            #expect(entries.first?["target"] == "/token")
            #expect(!answer.text.contains("secret-value"))
        }
    }
}
