import Testing
import VersolaJOSE
import VersolaTestIdP

/// The discovery document: every field a client relies on, exactly (A1, A3, A5, D2).
@Suite struct TestIdPDiscoveryTests {
    @Test func documentAdvertisesEveryEndpointAndCapability() async throws {
        try await withProvider { idp in
            let answer = await idp.get("/.well-known/openid-configuration")
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type") == "application/json")
            let document = try #require(answer.json)
            let issuer = "http://127.0.0.1"
            #expect(document["issuer"]?.string == issuer)
            #expect(document["authorization_endpoint"]?.string == issuer + "/authorize")
            #expect(document["token_endpoint"]?.string == issuer + "/token")
            #expect(document["userinfo_endpoint"]?.string == issuer + "/userinfo")
            #expect(document["jwks_uri"]?.string == issuer + "/jwks")
            #expect(document["revocation_endpoint"]?.string == issuer + "/revoke")
            #expect(document["end_session_endpoint"]?.string == issuer + "/logout")
            #expect(document["pushed_authorization_request_endpoint"]?.string == issuer + "/par")
            #expect(document["require_pushed_authorization_requests"] == false)
            #expect(document["response_types_supported"] == ["code"])
            #expect(document["response_modes_supported"] == ["query"])
            #expect(
                document["grant_types_supported"]
                    == ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"])
            #expect(document["device_authorization_endpoint"]?.string == issuer + "/device_authorization")
            #expect(document["subject_types_supported"] == ["public"])
            #expect(document["id_token_signing_alg_values_supported"] == ["RS256", "ES256"])
            // A2: S256 only, never plain.
            #expect(document["code_challenge_methods_supported"] == ["S256"])
            #expect(document["token_endpoint_auth_methods_supported"] == ["none"])
            #expect(document["revocation_endpoint_auth_methods_supported"] == ["none"])
            #expect(document["scopes_supported"]?.array?.contains("openid") == true)
            #expect(document["claims_supported"]?.array?.contains("sub") == true)
            #expect(document["dpop_signing_alg_values_supported"] == ["ES256", "RS256", "PS256", "EdDSA"])
            #expect(document["authorization_response_iss_parameter_supported"] == true)
        }
    }

    @Test func optionalCapabilitiesFollowTheConfiguration() async throws {
        try await withProvider(configure: {
            $0.advertisePushedAuthorizationRequests = false
            $0.advertiseDPoP = false
            $0.advertiseIssuerParameter = false
            $0.advertiseDeviceAuthorization = false
        }) { idp in
            let document = try #require(await idp.get("/.well-known/openid-configuration").json)
            #expect(document["device_authorization_endpoint"] == nil)
            #expect(document["grant_types_supported"] == ["authorization_code", "refresh_token"])
            #expect(document["pushed_authorization_request_endpoint"] == nil)
            #expect(document["dpop_signing_alg_values_supported"] == nil)
            #expect(document["authorization_response_iss_parameter_supported"] == nil)
        }
        try await withProvider(configure: { $0.requirePushedAuthorizationRequests = true }) { idp in
            let strict = try #require(await idp.get("/.well-known/openid-configuration").json)
            #expect(strict["require_pushed_authorization_requests"] == true)
        }
    }

    // A1: an issuer with a path keeps it everywhere; discovery lives under it (OIDC Discovery §4).
    @Test func issuerWithAPathServesEverythingUnderThePath() async throws {
        try await withProvider(issuer: "http://127.0.0.1:9000/tenant") { idp in
            let document = try #require(await idp.get("/.well-known/openid-configuration").json)
            #expect(document["issuer"]?.string == "http://127.0.0.1:9000/tenant")
            #expect(document["token_endpoint"]?.string == "http://127.0.0.1:9000/tenant/token")
            #expect(document["jwks_uri"]?.string == "http://127.0.0.1:9000/tenant/jwks")

            // Outside the issuer's path there is nothing.
            let outside = await idp.provider.handle(.init(method: "GET", target: "/.well-known/openid-configuration"))
            #expect(outside.status == 404)
            let sibling = await idp.provider.handle(.init(method: "GET", target: "/tenantX/jwks"))
            #expect(sibling.status == 404)

            // The whole flow works with the path, and ID tokens carry it as `iss`.
            let tokens = try await idp.tokens()
            let (claims, _) = try await idp.verifiedClaims(of: tokens.idToken)
            #expect(claims["iss"]?.string == "http://127.0.0.1:9000/tenant")
        }
    }

    // A1: the wrongIssuer fault serves a different issuer once, then the real one.
    @Test func wrongIssuerFaultServesAnImpostorOnce() async throws {
        try await withProvider { idp in
            await idp.provider.arm(TestFaultRule(.discovery, .wrongIssuer))
            let faulted = try #require(await idp.get("/.well-known/openid-configuration").json)
            #expect(faulted["issuer"]?.string != idp.issuer)
            #expect(faulted["issuer"]?.string?.isEmpty == false)
            let healed = try #require(await idp.get("/.well-known/openid-configuration").json)
            #expect(healed["issuer"]?.string == idp.issuer)
        }
    }

    @Test func unknownPathsAreNotFound() async throws {
        try await withProvider { idp in
            #expect(await idp.get("/nothing-here").status == 404)
            #expect(await idp.get("/_admin").status == 404)
        }
    }
}
