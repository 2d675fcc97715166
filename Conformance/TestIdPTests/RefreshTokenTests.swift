import Testing
import VersolaTestIdP

/// Refresh token rotation and reuse detection (S7, A7, P7, T2).
@Suite struct RefreshTokenTests {
    @Test func refreshRotatesTheTokenAndKeepsTheIdentity() async throws {
        try await withProvider { idp in
            let first = try await idp.tokens()
            let firstRefresh = try #require(first.refreshToken)
            idp.clock.advance(by: 30)
            let second = try ProviderHarness.tokens(from: await idp.refresh(firstRefresh))
            let secondRefresh = try #require(second.refreshToken)
            #expect(secondRefresh != firstRefresh)
            #expect(second.accessToken != first.accessToken)
            #expect(second.tokenType == "Bearer")

            // A7: the new ID token keeps iss, sub, aud; it carries no nonce.
            let before = try await idp.verifiedClaims(of: first.idToken).claims
            let after = try await idp.verifiedClaims(of: second.idToken).claims
            #expect(after["iss"] == before["iss"])
            #expect(after["sub"] == before["sub"])
            #expect(after["aud"] == before["aud"])
            #expect(after["auth_time"] == before["auth_time"])
            #expect(after["iat"]?.int64 == idp.clock.seconds)
            #expect(after["nonce"] == nil)

            #expect(await idp.getProtected("/userinfo", scheme: "Bearer", token: second.accessToken).status == 200)
            // The next rotation works from the newest token.
            #expect(await idp.refresh(secondRefresh).status == 200)
        }
    }

    // Reuse of a rotated token revokes the whole family: even the newest token stops working.
    @Test func reuseOfARotatedTokenRevokesTheWholeFamily() async throws {
        try await withProvider { idp in
            let first = try await idp.tokens()
            let stolen = try #require(first.refreshToken)
            let second = try ProviderHarness.tokens(from: await idp.refresh(stolen))
            let newest = try #require(second.refreshToken)
            let revokedBefore = await idp.provider.revokedFamilyCount

            let reuse = await idp.refresh(stolen)
            #expect(reuse.status == 400)
            #expect(reuse.oauthError == "invalid_grant")
            #expect(await idp.provider.revokedFamilyCount == revokedBefore + 1)
            #expect(await idp.provider.familyWasRevoked(ofRefreshToken: newest))

            #expect(await idp.refresh(newest).oauthError == "invalid_grant")
            #expect(await idp.getProtected("/userinfo", scheme: "Bearer", token: second.accessToken).status == 401)
            #expect(await idp.getProtected("/userinfo", scheme: "Bearer", token: first.accessToken).status == 401)
        }
    }

    @Test func otherGrantsSurviveAReuse() async throws {
        try await withProvider { idp in
            let victim = try await idp.tokens()
            let bystander = try await idp.tokens()
            let stolen = try #require(victim.refreshToken)
            _ = await idp.refresh(stolen)
            _ = await idp.refresh(stolen)
            #expect(await idp.refresh(try #require(bystander.refreshToken)).status == 200)
        }
    }

    @Test func unknownOrForeignRefreshTokensAreRefused() async throws {
        try await withProvider { idp in
            #expect(await idp.refresh("made-up").oauthError == "invalid_grant")
            let tokens = try await idp.tokens()
            let refresh = try #require(tokens.refreshToken)
            let foreign = await idp.refresh(refresh, clientID: "versola-test-es256")
            #expect(foreign.oauthError == "invalid_grant")
            let missing = await idp.post("/token", form: [("grant_type", "refresh_token"), ("client_id", "versola-test")])
            #expect(missing.oauthError == "invalid_grant")
        }
    }

    // A DPoP-bound refresh token needs a proof by the same key (RFC 9449 §5).
    @Test func dpopBoundRefreshTokenNeedsTheSameKey() async throws {
        try await withProvider { idp in
            let key = try ClientDPoPKey()
            let tokens = try await idp.tokens(key: key)
            #expect(tokens.tokenType == "DPoP")
            let refresh = try #require(tokens.refreshToken)

            let withoutProof = await idp.refresh(refresh)
            #expect(withoutProof.oauthError == "invalid_dpop_proof")
            let otherKey = await idp.refresh(refresh, dpop: try idp.tokenProof(try ClientDPoPKey()))
            #expect(otherKey.oauthError == "invalid_grant")

            let rotated = try ProviderHarness.tokens(from: await idp.refresh(refresh, dpop: try idp.tokenProof(key)))
            #expect(rotated.tokenType == "DPoP")
            #expect(try await idp.getWithDPoP("/userinfo", token: rotated.accessToken, key: key).status == 200)
        }
    }
}
