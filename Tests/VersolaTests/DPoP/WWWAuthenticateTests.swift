import Testing
import Versola
import VersolaHTTP

@Suite struct WWWAuthenticateTests {
    @Test("D3 A10: one challenge with quoted and token parameters; names are case-insensitive")
    func single() throws {
        let header = WWWAuthenticate(#"DPoP algs="ES256 PS256", ERROR=use_dpop_nonce, error_description="Resource server requires nonce in DPoP proof""#)
        #expect(header.challenges.count == 1)
        let challenge = try #require(header.challenge(scheme: "dpop"))
        #expect(challenge.scheme == "DPoP")
        #expect(challenge.error == "use_dpop_nonce")
        #expect(challenge["algs"] == "ES256 PS256")
        #expect(challenge["Error_Description"] == "Resource server requires nonce in DPoP proof")
    }

    @Test("D3: several challenges in one field, and across fields")
    func several() throws {
        let header = WWWAuthenticate(
            #"Bearer realm="api", error="invalid_token", DPoP algs="ES256", error="invalid_dpop_proof", Basic realm="x""#)
        #expect(header.challenges.map(\.scheme) == ["Bearer", "DPoP", "Basic"])
        #expect(header.challenge(scheme: "bearer")?["realm"] == "api")
        #expect(header.challenge(scheme: "DPoP")?.error == "invalid_dpop_proof")
        #expect(header.challenge(scheme: "basic")?["realm"] == "x")

        let fields = WWWAuthenticate(headers: [
            "WWW-Authenticate": #"Bearer error="invalid_token""#, "www-authenticate": #"DPoP error="use_dpop_nonce""#,
        ])
        #expect(fields.challenges.map(\.scheme) == ["Bearer", "DPoP"])
        #expect(fields.challenge(scheme: "DPoP")?.error == "use_dpop_nonce")
    }

    @Test("quoted strings keep commas and unescape backslashes; token68 and bare schemes parse")
    func quotingAndToken68() throws {
        let header = WWWAuthenticate(#"Newauth realm="apps, \"x\" \\ y", type=1, Basic, Negotiate abc+/def==, Bearer"#)
        #expect(header.challenges.map(\.scheme) == ["Newauth", "Basic", "Negotiate", "Bearer"])
        #expect(header.challenges[0]["realm"] == #"apps, "x" \ y"#)
        #expect(header.challenges[0]["type"] == "1")
        #expect(header.challenges[1].parameters.isEmpty)
        #expect(header.challenges[2].token68 == "abc+/def==")
        #expect(header.challenges[3].parameters.isEmpty)
    }

    @Test("A10 S5: a step-up challenge yields acr_values and max_age")
    func stepUp() throws {
        let header = WWWAuthenticate(
            #"Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="urn:mfa urn:hwk", max_age="300""#)
        #expect(header.stepUpChallenge == StepUpChallenge(acrValues: ["urn:mfa", "urn:hwk"], maxAge: 300))
        #expect(WWWAuthenticate(#"Bearer error="invalid_token""#).stepUpChallenge == nil)
    }

    @Test("malformed values never crash and yield what can be read", arguments: [
        "", ",,,", "=", "\"", "DPoP error=\"unterminated", "DPoP ,error=", "  Bearer  ,  ", "DPoP error==x", "é ü",
        "Bearer realm=\"a\"\" DPoP", "=== , Bearer",
    ])
    func malformed(_ value: String) {
        let header = WWWAuthenticate(value)
        #expect(header.challenges.count <= 3)
    }

    @Test("an unterminated quoted string runs to the end")
    func unterminated() {
        #expect(WWWAuthenticate(#"DPoP error="use_dpop_nonce"#).challenge(scheme: "DPoP")?.error == "use_dpop_nonce")
    }
}

@Suite("Step-up challenge values")
struct StepUpChallengeValueTests {
    @Test("L5 A10: acr_values with quotes or shell metacharacters make the challenge malformed", arguments: [
        #"x'; touch /tmp/p; echo '"#, "a$(id)", "a`id`", #"a"b"#, "a|b", "a&b", "a;b", "a>b", "a\\b", "é",
    ])
    func hostileValuesAreRefused(_ value: String) {
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let header = WWWAuthenticate(#"Bearer error="insufficient_user_authentication", acr_values="\#(escaped)""#)
        #expect(header.stepUpChallenge == nil)
        let thrown = #expect {
            try header.validatedStepUpChallenge()
        } throws: { error in
            guard case .configuration(.providerUnsupported(let reason, provider: nil)) = error as? VersolaError else { return false }
            return reason.contains("acr_values")
        }
        #expect(thrown.map { !String(describing: $0).contains(value) } == true)
    }

    @Test("A10: names and URIs pass; a max_age that is not digits is malformed")
    func ordinaryValuesPass() throws {
        let header = WWWAuthenticate(
            #"DPoP error="insufficient_user_authentication", acr_values="urn:mace:incommon:iap:silver http://id.example/mfa#2 phr", max_age=0"#)
        #expect(
            try header.validatedStepUpChallenge()
                == StepUpChallenge(acrValues: ["urn:mace:incommon:iap:silver", "http://id.example/mfa#2", "phr"], maxAge: 0))
        #expect(try WWWAuthenticate(#"Bearer error="insufficient_user_authentication""#).validatedStepUpChallenge()
            == StepUpChallenge())
        for maxAge in ["-5", "1e3", "\"\"", "99999999999"] {
            let bad = WWWAuthenticate(#"Bearer error="insufficient_user_authentication", max_age=\#(maxAge)"#)
            #expect(bad.stepUpChallenge == nil, "\(maxAge)")
        }
        #expect(try WWWAuthenticate(#"Bearer error="invalid_token""#).validatedStepUpChallenge() == nil)
    }
}
