import Testing
import VersolaTestIdP

/// The JSON form of a fault plan (`--fault-plan FILE`, `POST /_admin/faults`).
@Suite struct TestFaultPlanTests {
    @Test func goodPlanReadsEveryEntryInOrder() throws {
        let plan = try TestFaultPlan(
            json: """
                {"faults": [
                  {"endpoint": "token", "fault": "respond", "status": 503, "headers": {"Retry-After": "3"}, "body": "{}", "times": 2},
                  {"endpoint": "authorize", "fault": "oauthError", "error": "access_denied"},
                  {"endpoint": "token", "fault": "demandNonceForever", "times": null},
                  {"endpoint": "resource", "fault": "stepUp", "acr_values": "gold", "max_age": 60},
                  {"endpoint": "resource", "fault": "stepUp", "acr_values": "silver"},
                  {"endpoint": "discovery", "fault": "redirect", "location": "https://x.example/"},
                  {"endpoint": "jwks", "fault": "delay", "milliseconds": 250}
                ]}
                """)
        #expect(
            plan.rules == [
                TestFaultRule(.token, .respond(status: 503, headers: ["Retry-After": "3"], body: "{}"), times: 2),
                TestFaultRule(.authorize, .oauthError("access_denied"), times: 1),
                TestFaultRule(.token, .demandNonceForever, times: nil),
                TestFaultRule(.resource, .stepUp(acrValues: "gold", maxAge: 60)),
                TestFaultRule(.resource, .stepUp(acrValues: "silver", maxAge: nil)),
                TestFaultRule(.discovery, .redirect(location: "https://x.example/")),
                TestFaultRule(.jwks, .delay(milliseconds: 250)),
            ])
        #expect(try TestFaultPlan(json: #"{"faults": []}"#).rules.isEmpty)
    }

    @Test(arguments: [
        ("closeBeforeReading", TestFault.closeBeforeReading), ("closeAfterReading", .closeAfterReading), ("reset", .reset),
        ("wrongIssuer", .wrongIssuer), ("wrongRedirectIssuer", .wrongRedirectIssuer),
        ("unknownSigningKey", .unknownSigningKey), ("badSignature", .badSignature), ("algNone", .algNone),
        ("wrongNonce", .wrongNonce), ("wrongAudience", .wrongAudience), ("expiredIDToken", .expiredIDToken),
        ("wrongIDTokenIssuer", .wrongIDTokenIssuer), ("wrongAccessTokenHash", .wrongAccessTokenHash),
        ("demandNonceForever", .demandNonceForever), ("invalidDPoPProof", .invalidDPoPProof),
        ("bearerTokenType", .bearerTokenType), ("wrongUserInfoSubject", .wrongUserInfoSubject),
    ])
    func everyParameterlessFaultHasItsName(name: String, fault: TestFault) throws {
        let plan = try TestFaultPlan(json: #"{"faults": [{"endpoint": "token", "fault": "\#(name)"}]}"#)
        #expect(plan.rules == [TestFaultRule(.token, fault)])
    }

    @Test(arguments: [
        "not json", "[]", #"{"faults": {}}"#, #"{"rules": []}"#,
        #"{"faults": [{"fault": "reset"}]}"#,
        #"{"faults": [{"endpoint": "nowhere", "fault": "reset"}]}"#,
        #"{"faults": [{"endpoint": "token"}]}"#,
        #"{"faults": [{"endpoint": "token", "fault": "explode"}]}"#,
        #"{"faults": [{"endpoint": "token", "fault": "respond"}]}"#,
        #"{"faults": [{"endpoint": "token", "fault": "respond", "status": 99}]}"#,
        #"{"faults": [{"endpoint": "token", "fault": "respond", "status": 600}]}"#,
        #"{"faults": [{"endpoint": "token", "fault": "respond", "status": "503"}]}"#,
        #"{"faults": [{"endpoint": "token", "fault": "respond", "status": 503, "headers": {"Retry-After": 3}}]}"#,
        #"{"faults": [{"endpoint": "token", "fault": "delay"}]}"#,
        #"{"faults": [{"endpoint": "token", "fault": "delay", "milliseconds": -1}]}"#,
        #"{"faults": [{"endpoint": "token", "fault": "redirect"}]}"#,
        #"{"faults": [{"endpoint": "token", "fault": "oauthError"}]}"#,
        #"{"faults": [{"endpoint": "resource", "fault": "stepUp", "max_age": 5}]}"#,
        #"{"faults": [{"endpoint": "token", "fault": "reset", "times": 0}]}"#,
        #"{"faults": [{"endpoint": "token", "fault": "reset", "times": -2}]}"#,
        #"{"faults": [{"endpoint": "token", "fault": "reset", "times": "2"}]}"#,
        #"{"faults": [{"endpoint": "token", "fault": "reset"}, {"endpoint": "token", "fault": "nope"}]}"#,
    ])
    func malformedPlanIsAnError(json: String) {
        #expect(throws: TestFaultPlanError.self) { try TestFaultPlan(json: json) }
    }

    @Test func errorNamesTheFirstBadEntry() {
        let plan = #"{"faults": [{"endpoint": "token", "fault": "reset"}, {"endpoint": "token", "fault": "nope"}]}"#
        #expect {
            try TestFaultPlan(json: plan)
        } throws: { error in
            (error as? TestFaultPlanError)?.reason.contains("entry 1") == true
        }
    }

    // `times` null applies for ever; a number is consumed one request at a time.
    @Test func timesNullIsForeverAndTimesNIsConsumed() async throws {
        try await withProvider { idp in
            let plan = try TestFaultPlan(
                json: """
                    {"faults": [
                      {"endpoint": "jwks", "fault": "respond", "status": 503, "times": null},
                      {"endpoint": "discovery", "fault": "respond", "status": 429, "times": 3}
                    ]}
                    """)
            await idp.provider.arm(plan)
            for _ in 0..<3 { #expect(await idp.get("/.well-known/openid-configuration").status == 429) }
            #expect(await idp.get("/.well-known/openid-configuration").status == 200)
            for _ in 0..<10 { #expect(await idp.get("/jwks").status == 503) }
            await idp.provider.clearFaults()
            #expect(await idp.get("/jwks").status == 200)
        }
    }

    @Test func adminEndpointArmsAndClearsPlans() async throws {
        try await withProvider { idp in
            let body = #"{"faults": [{"endpoint": "jwks", "fault": "respond", "status": 503, "times": null}]}"#
            let armed = await idp.provider.handle(.init(method: "POST", target: "/_admin/faults", body: Array(body.utf8)))
            #expect(armed.status == 200)
            #expect(armed.json?["armed"] == 1)
            #expect(await idp.get("/jwks").status == 503)

            let bad = await idp.provider.handle(.init(method: "POST", target: "/_admin/faults", body: Array("{}".utf8)))
            #expect(bad.status == 400)
            #expect(bad.json?["error"]?.string?.hasPrefix("fault plan:") == true)

            #expect(await idp.post("/_admin/clear-faults", form: []).json?["armed"] == 0)
            #expect(await idp.get("/jwks").status == 200)
            #expect(await idp.get("/_admin/faults").status == 404)
        }
    }
}
