import Testing
import VersolaHTTP
import VersolaTestIdP

/// Step-up challenges at the resource, RFC 9470 (S5, E3, A10).
@Suite struct StepUpTests {
    @Test func stepUpFaultChallengesOnceWithACRValuesAndMaxAge() async throws {
        try await withProvider { idp in
            let tokens = try await idp.tokens()
            await idp.provider.arm(TestFaultRule(.resource, .stepUp(acrValues: "urn:example:mfa", maxAge: 120)))
            let challenged = await idp.getProtected("/resource", scheme: "Bearer", token: tokens.accessToken)
            #expect(challenged.status == 401)
            let challenge = try #require(AuthenticateChallenge(challenged.header("WWW-Authenticate")))
            #expect(challenge.scheme == "Bearer")
            #expect(challenge.parameters["error"] == "insufficient_user_authentication")
            #expect(challenge.parameters["acr_values"] == "urn:example:mfa")
            #expect(challenge.parameters["max_age"] == "120")
            #expect(await idp.getProtected("/resource", scheme: "Bearer", token: tokens.accessToken).status == 200)
        }
    }

    @Test func stepUpForADPoPTokenUsesTheDPoPScheme() async throws {
        try await withProvider { idp in
            let key = try ClientDPoPKey()
            let tokens = try await idp.tokens(key: key)
            await idp.provider.arm(TestFaultRule(.resource, .stepUp(acrValues: "gold", maxAge: nil)))
            let challenged = try await idp.getWithDPoP("/resource", token: tokens.accessToken, key: key)
            let challenge = try #require(AuthenticateChallenge(challenged.header("WWW-Authenticate")))
            #expect(challenge.scheme == "DPoP")
            #expect(challenge.parameters["error"] == "insufficient_user_authentication")
            #expect(challenge.parameters["acr_values"] == "gold")
            #expect(challenge.parameters["max_age"] == nil)
        }
    }

    // S5: the required acr is demanded until the user authenticates with it.
    @Test func resourceRequiredACRDemandsStepUpUntilSatisfied() async throws {
        try await withProvider(configure: { $0.resourceRequiredACR = "urn:example:mfa" }) { idp in
            let plain = try await idp.tokens()
            let challenged = await idp.getProtected("/resource", scheme: "Bearer", token: plain.accessToken)
            #expect(challenged.status == 401)
            let challenge = try #require(AuthenticateChallenge(challenged.header("WWW-Authenticate")))
            #expect(challenge.parameters["error"] == "insufficient_user_authentication")
            #expect(challenge.parameters["acr_values"] == "urn:example:mfa")

            var stepUp = AuthorizationRequest()
            stepUp.extra = [("acr_values", "urn:example:mfa"), ("max_age", "0")]
            let stronger = try await idp.tokens(stepUp)
            #expect(try await idp.verifiedClaims(of: stronger.idToken).claims["acr"] == "urn:example:mfa")
            let granted = await idp.getProtected("/resource", scheme: "Bearer", token: stronger.accessToken)
            #expect(granted.status == 200)
            #expect(granted.json?["acr"] == "urn:example:mfa")
            // UserInfo is not the step-up resource.
            #expect(await idp.getProtected("/userinfo", scheme: "Bearer", token: plain.accessToken).status == 200)
        }
    }
}
