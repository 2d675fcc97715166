import Testing
import VersolaHTTP
import VersolaTestIdP

/// The UserInfo endpoint with Bearer and DPoP tokens (A8).
@Suite struct TestIdPUserInfoTests {
    @Test func bearerTokenGetsTheUsersClaims() async throws {
        try await withProvider { idp in
            let tokens = try await idp.tokens()
            let answer = await idp.getProtected("/userinfo", scheme: "Bearer", token: tokens.accessToken)
            #expect(answer.status == 200)
            #expect(answer.header("Cache-Control") == "no-store")
            let subject = try await idp.verifiedClaims(of: tokens.idToken).claims["sub"]
            #expect(answer.json?["sub"] == subject)
            #expect(answer.json?["email"] == "alice@example.test")
            #expect(answer.json?["name"] == "Alice Example")
        }
    }

    @Test func dpopTokenGetsTheUsersClaims() async throws {
        try await withProvider { idp in
            let key = try ClientDPoPKey()
            let tokens = try await idp.tokens(key: key)
            let answer = try await idp.getWithDPoP("/userinfo", token: tokens.accessToken, key: key)
            #expect(answer.status == 200)
            #expect(answer.json?["sub"] == "248289761001")
            // The proof must name the UserInfo URL, not the resource's.
            let misdirected = try key.proof("GET", idp.url("/resource"), at: idp.clock.now, accessToken: tokens.accessToken)
            #expect(await idp.getProtected("/userinfo", scheme: "DPoP", token: tokens.accessToken, dpop: misdirected).status == 401)
        }
    }

    @Test func postIsAcceptedAndOtherMethodsAreNot() async throws {
        try await withProvider { idp in
            let tokens = try await idp.tokens()
            let post = await idp.post("/userinfo", form: [], headers: ["Authorization": "Bearer " + tokens.accessToken])
            #expect(post.status == 200)
            let put = await idp.provider.handle(
                HTTPServerRequest(method: "PUT", target: "/userinfo", headers: ["Authorization": "Bearer " + tokens.accessToken]))
            #expect(put.status == 405)
        }
    }

    @Test func missingOrUnknownTokenIsRefused() async throws {
        try await withProvider { idp in
            let none = await idp.get("/userinfo")
            #expect(none.status == 401)
            #expect(none.header("WWW-Authenticate") == "Bearer")
            let unknown = await idp.getProtected("/userinfo", scheme: "Bearer", token: "nope")
            #expect(unknown.status == 401)
            #expect(AuthenticateChallenge(unknown.header("WWW-Authenticate"))?.parameters["error"] == "invalid_token")
        }
    }

    // A8: the wrongUserInfoSubject fault answers another sub, once.
    @Test func wrongUserInfoSubjectFault() async throws {
        try await withProvider { idp in
            let tokens = try await idp.tokens()
            let subject = try await idp.verifiedClaims(of: tokens.idToken).claims["sub"]?.string
            await idp.provider.arm(TestFaultRule(.userinfo, .wrongUserInfoSubject))
            let faulted = await idp.getProtected("/userinfo", scheme: "Bearer", token: tokens.accessToken)
            #expect(faulted.status == 200)
            let wrong = try #require(faulted.json?["sub"]?.string)
            #expect(wrong != subject)
            let healed = await idp.getProtected("/userinfo", scheme: "Bearer", token: tokens.accessToken)
            #expect(healed.json?["sub"]?.string == subject)
        }
    }
}
