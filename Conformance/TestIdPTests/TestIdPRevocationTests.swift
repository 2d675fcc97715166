import Testing
import VersolaHTTP
import VersolaTestIdP

/// Token revocation, RFC 7009 (A9, S9).
@Suite struct TestIdPRevocationTests {
    static func revoke(_ idp: ProviderHarness, _ token: String, clientID: String = "versola-test") async
        -> HTTPServerAction
    {
        await idp.post("/revoke", form: [("token", token), ("client_id", clientID)])
    }

    @Test func revokingTheRefreshTokenKillsTheFamily() async throws {
        try await withProvider { idp in
            let first = try await idp.tokens()
            let second = try ProviderHarness.tokens(from: await idp.refresh(try #require(first.refreshToken)))
            let newest = try #require(second.refreshToken)
            let bystander = try await idp.tokens()

            let answer = await Self.revoke(idp, newest)
            #expect(answer.status == 200)
            #expect(await idp.provider.familyWasRevoked(ofRefreshToken: newest))
            #expect(await idp.refresh(newest).oauthError == "invalid_grant")
            #expect(await idp.getProtected("/userinfo", scheme: "Bearer", token: second.accessToken).status == 401)
            #expect(await idp.getProtected("/userinfo", scheme: "Bearer", token: first.accessToken).status == 401)
            // Other grants are untouched.
            #expect(await idp.getProtected("/userinfo", scheme: "Bearer", token: bystander.accessToken).status == 200)
        }
    }

    @Test func revokingAnAccessTokenKillsOnlyIt() async throws {
        try await withProvider { idp in
            let tokens = try await idp.tokens()
            #expect(await Self.revoke(idp, tokens.accessToken).status == 200)
            #expect(await idp.getProtected("/userinfo", scheme: "Bearer", token: tokens.accessToken).status == 401)
            #expect(await idp.refresh(try #require(tokens.refreshToken)).status == 200)
        }
    }

    // RFC 7009 §2.2: an unknown (or already revoked) token is answered 200.
    @Test func unknownTokenIsAnswered200() async throws {
        try await withProvider { idp in
            let answer = await Self.revoke(idp, "never-issued")
            #expect(answer.status == 200)
            #expect(answer.response?.body.isEmpty == true)
            let tokens = try await idp.tokens()
            let refresh = try #require(tokens.refreshToken)
            #expect(await Self.revoke(idp, refresh).status == 200)
            #expect(await Self.revoke(idp, refresh).status == 200)
        }
    }

    // RFC 7009 §2.1: the token must have been issued to the client revoking it.
    @Test func anotherClientsTokenIsNotRevoked() async throws {
        try await withProvider { idp in
            let tokens = try await idp.tokens()
            let refresh = try #require(tokens.refreshToken)
            let refused = await Self.revoke(idp, refresh, clientID: "versola-test-es256")
            #expect(refused.status == 400)
            #expect(!(await idp.provider.familyWasRevoked(ofRefreshToken: refresh)))
            let access = await Self.revoke(idp, tokens.accessToken, clientID: "versola-test-es256")
            #expect(access.status == 400)
            #expect(await idp.getProtected("/userinfo", scheme: "Bearer", token: tokens.accessToken).status == 200)
        }
    }

    @Test func malformedRevocationsAreRefused() async throws {
        try await withProvider { idp in
            let unknownClient = await Self.revoke(idp, "x", clientID: "nobody")
            #expect(unknownClient.status == 401)
            #expect(unknownClient.oauthError == "invalid_client")
            let missing = await idp.post("/revoke", form: [("client_id", "versola-test")])
            #expect(missing.oauthError == "invalid_request")
            #expect(await idp.get("/revoke").status == 405)
        }
    }
}
