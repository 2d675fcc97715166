import Testing
import VersolaCrypto
import VersolaJOSE
import VersolaTestIdP

/// The JWKS and the ID-token signatures it must verify (A7).
@Suite struct SigningKeyTests {
    @Test func jwksPublishesOneRSAAndOneP256PublicKey() async throws {
        try await withProvider { idp in
            let answer = await idp.get("/jwks")
            #expect(answer.status == 200)
            let keys = try #require(answer.json?["keys"]?.array)
            #expect(keys.count == 2)
            let rsa = try #require(keys.first { $0["kty"] == "RSA" })
            #expect(rsa["kid"] == "rsa-1")
            #expect(rsa["alg"] == "RS256")
            #expect(rsa["use"] == "sig")
            let ec = try #require(keys.first { $0["kty"] == "EC" })
            #expect(ec["kid"] == "ec-1")
            #expect(ec["alg"] == "ES256")
            #expect(ec["crv"] == "P-256")
            for key in keys {
                for secret in ["d", "p", "q", "dp", "dq", "qi", "k"] { #expect(key[secret] == nil) }
            }
            let set = try JWKSet(parsing: answer.response?.body ?? [])
            #expect(set.keys.count == 2)
            #expect(set.ignoredKeys.isEmpty)
            // RSA of at least 2048 bits.
            if case .rsa(let modulus, _) = try #require(set.keys.first { $0.keyType == .rsa }).material {
                #expect(modulus.count >= 256)
            }
        }
    }

    @Test(arguments: [("versola-test", "RS256", "rsa-1"), ("versola-test-es256", "ES256", "ec-1")])
    func idTokenVerifiesWithThePublishedKeyOfItsKid(client: String, algorithm: String, keyID: String) async throws {
        try await withProvider { idp in
            var request = AuthorizationRequest()
            request.clientID = client
            let tokens = try await idp.tokens(request)
            let header = try ProviderHarness.unverifiedHeader(tokens.idToken)
            #expect(header["alg"]?.string == algorithm)
            #expect(header["kid"]?.string == keyID)
            #expect(header["typ"]?.string == "JWT")
            let (claims, key) = try await idp.verifiedClaims(of: tokens.idToken)
            #expect(key.keyID == keyID)
            #expect(claims["aud"]?.string == client)
        }
    }

    @Test func rotationPublishesNewKeysAndKeepsThePreviousOnes() async throws {
        let idp = try ProviderHarness()
        let before = try await idp.tokens()
        try await idp.provider.rotateSigningKeys()
        let kids = try #require(await idp.get("/jwks").json?["keys"]?.array).compactMap { $0["kid"]?.string }
        #expect(Set(kids) == ["rsa-2", "ec-2", "rsa-1", "ec-1"])

        // New tokens use the new key; old tokens still verify against the published set.
        let after = try await idp.tokens()
        #expect(try await idp.verifiedClaims(of: after.idToken).key.keyID == "rsa-2")
        #expect(try await idp.verifiedClaims(of: before.idToken).key.keyID == "rsa-1")

        // A rotation that drops the previous keys leaves old tokens with an unknown kid.
        try await idp.provider.rotateSigningKeys(retainPrevious: false)
        let latest = try #require(await idp.get("/jwks").json?["keys"]?.array).compactMap { $0["kid"]?.string }
        #expect(Set(latest) == ["rsa-3", "ec-3"])
        await #expect(throws: JWSError.keyNotFound(keyID: "rsa-1")) {
            _ = try await idp.verifiedClaims(of: before.idToken)
        }
    }

    @Test func adminRotationEndpointRotates() async throws {
        let idp = try ProviderHarness()
        let answer = await idp.post("/_admin/rotate-keys", form: [])
        #expect(answer.status == 200)
        #expect(answer.json?["generation"] == 2)
        let kids = try #require(await idp.get("/jwks").json?["keys"]?.array).compactMap { $0["kid"]?.string }
        #expect(kids.contains("rsa-2"))
    }
}
