import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTesting
import VersolaTestIdP

/// Scenarios for the transport rules (R1–R8, E8), run against the test provider over real
/// sockets and libcurl. Waits run on a manual clock, so no scenario sleeps; each asserts
/// how many requests the provider actually received.
@Suite(.serialized) struct TransportScenarios {
    /// A provider, a client on a manual clock, and the endpoint URLs.
    struct Rig {
        let idp: TestIdentityServer
        let clock = ManualClock()
        let client: RetryingClient

        init() async throws {
            idp = try await TestIdentityServer.start(configuration: {
                var configuration = TestProviderConfiguration()
                configuration.autoLogin = true
                return configuration
            }())
            var options = TransportOptions()
            options.totalTimeout = .seconds(10)
            client = RetryingClient(
                transport: CurlTransport(), clock: clock, random: SeededRandomSource(seed: 42), defaultOptions: options)
        }

        /// Stops the provider.
        func stop() async {
            await idp.stop()
        }

        func url(_ path: String) -> URL {
            URL(string: idp.issuer + path)!
        }

        func budget(_ policy: RetryPolicy = RetryPolicy()) throws -> OperationBudget {
            try OperationBudget(policy: policy, clock: clock)
        }

        func count(_ endpoint: TestEndpoint) async -> Int {
            await idp.provider.requests(to: endpoint).count
        }

        func arm(_ endpoint: TestEndpoint, _ fault: TestFault, times: Int? = 1) async {
            await idp.provider.arm(TestFaultRule(endpoint, fault, times: times))
        }

        /// A token request that the provider will refuse with `invalid_grant` if it is ever
        /// processed (the grant does not exist), so only transport behaviour is measured.
        func tokenRequest(grant: String) -> HTTPRequest {
            let body = grant == "refresh_token"
                ? "grant_type=refresh_token&refresh_token=unknown&client_id=versola-test"
                : "grant_type=authorization_code&code=unknown&client_id=versola-test&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcallback&code_verifier=x"
            return HTTPRequest(
                method: .post, url: url("/token"), headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array(body.utf8))
        }
    }

    @Test(
        "R5: discovery is read again after a 408, 429, 500, 502, 503 or 504",
        arguments: [408, 429, 500, 502, 503, 504])
    func discoveryRepeatedAfterStatus(status: Int) async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            await rig.arm(.discovery, .respond(status: status))
            let response = try await rig.client.send(
                HTTPRequest(url: rig.url("/.well-known/openid-configuration")), kind: .read, budget: try rig.budget())
            #expect(response.status == 200)
            #expect(await rig.count(.discovery) == 2)
        }
    }

    @Test("R5: JWKS is read again after the connection drops without an answer")
    func jwksRepeatedAfterDrop() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            await rig.arm(.jwks, .closeAfterReading)
            await rig.arm(.jwks, .reset)
            let response = try await rig.client.send(HTTPRequest(url: rig.url("/jwks")), kind: .read, budget: try rig.budget())
            #expect(response.status == 200)
            #expect(await rig.count(.jwks) == 3)
        }
    }

    @Test("R4 E4: an endpoint that redirects is a configuration error and is not repeated")
    func redirectIsConfiguration() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            await rig.arm(.discovery, .redirect(location: "https://elsewhere.example/"))
            let thrown = await #expect(throws: HTTPFailure.self) {
                _ = try await rig.client.send(
                    HTTPRequest(url: rig.url("/.well-known/openid-configuration")), kind: .read, budget: try rig.budget())
            }
            #expect(thrown.map(VersolaError.init)?.category == "configuration" && thrown.map(VersolaError.init)?.cause == "invalidConfiguration", "got \(String(describing: thrown))")
            do {
                _ = try await rig.client.send(
                    HTTPRequest(url: rig.url("/.well-known/openid-configuration")), kind: .read, budget: try rig.budget())
            } catch {
                Issue.record("the redirect fault was used once; the second read must succeed, got \(error)")
            }
            #expect(await rig.count(.discovery) == 2)
        }
    }

    @Test("R4 A6: the code exchange is sent once, even after a 503 or a dropped answer", arguments: [0, 1, 2])
    func codeExchangeNeverRepeated(faultIndex: Int) async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            let faults: [TestFault] = [.respond(status: 503), .closeAfterReading, .reset]
            await rig.arm(.token, faults[faultIndex])
            let thrown2 = await #expect(throws: HTTPFailure.self) {
                _ = try await rig.client.send(
                    rig.tokenRequest(grant: "authorization_code"), kind: .codeExchange, budget: try rig.budget())
            }
            #expect(thrown2.map(VersolaError.init)?.cause == (faultIndex == 0 ? "server" : "network") && thrown2.map(VersolaError.init)?.category == "recoverable", "got \(String(describing: thrown2))")
            #expect(await rig.count(.token) == 1)
        }
    }

    @Test("R6: a refresh is repeated after a 408, 429 or 503", arguments: [408, 429, 503])
    func refreshRepeatedWhenProvablyNotProcessed(status: Int) async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            await rig.arm(.token, .respond(status: status))
            let response = try await rig.client.send(
                rig.tokenRequest(grant: "refresh_token"), kind: .refresh, budget: try rig.budget())
            // The second attempt reaches the provider, which refuses the unknown grant.
            #expect(response.status == 400)
            #expect(await rig.count(.token) == 2)
        }
    }

    @Test("R6: a refresh is not repeated after a 500, 502, 504, a reset or a dropped answer", arguments: [0, 1, 2, 3, 4])
    func refreshNotRepeatedWhenMaybeProcessed(faultIndex: Int) async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            let faults: [TestFault] = [
                .respond(status: 500), .respond(status: 502), .respond(status: 504), .reset, .closeAfterReading,
            ]
            await rig.arm(.token, faults[faultIndex])
            let thrown3 = await #expect(throws: HTTPFailure.self) {
                _ = try await rig.client.send(rig.tokenRequest(grant: "refresh_token"), kind: .refresh, budget: try rig.budget())
            }
            #expect(thrown3.map(VersolaError.init)?.cause == (faultIndex < 3 ? "server" : "network") && thrown3.map(VersolaError.init)?.category == "recoverable", "got \(String(describing: thrown3))")
            #expect(await rig.count(.token) == 1)
        }
    }

    @Test("R6 E8: a refresh to a port where nothing listens is repeated and ends as network")
    func refreshConnectFailure() async throws {
        let rig = try await Rig()
        await rig.idp.stop()
        let refusing = try #require(RefusingPort())
        var request = rig.tokenRequest(grant: "refresh_token")
        request.url = URL(string: "http://127.0.0.1:\(refusing.port)/token")!
        let budget = try rig.budget()
        do {
            _ = try await rig.client.send(request, kind: .refresh, budget: budget)
            Issue.record("a refresh to a closed port succeeded")
        } catch {
            #expect(VersolaError(error).category == "recoverable")
            #expect(VersolaError(error).cause == "network")
        }
        // Nothing was written, so every attempt of the policy was made (R6).
        #expect(budget.failedRequests == RetryPolicy().maxAttempts)
        withExtendedLifetime(refusing) {}
    }

    @Test("R7: an application request is not repeated on a status; every status comes back")
    func applicationRequestsNotRepeated() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            await rig.arm(.resource, .respond(status: 503, headers: ["Retry-After": "1"]))
            let response = try await rig.client.send(
                HTTPRequest(url: URL(string: rig.idp.resourceURL)!), kind: .application, budget: try rig.budget())
            #expect(response.status == 503)
            #expect(await rig.count(.resource) == 1)
        }
    }

    @Test("R8: a Retry-After that fits the budget is waited exactly, then the read succeeds")
    func retryAfterWaitedExactly() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            await rig.arm(.userinfo, .respond(status: 429, headers: ["Retry-After": "3"]))
            let response = try await rig.client.send(HTTPRequest(url: rig.url("/userinfo")), kind: .read, budget: try rig.budget())
            #expect(response.status == 401)  // no token: the provider's own answer, after the wait
            #expect(rig.clock.sleeps == [.seconds(3)])
            #expect(await rig.count(.userinfo) == 2)
        }
    }

    @Test("R8 E1 E13: a Retry-After past the budget stops at once, carries retryAfter, and closes the origin")
    func retryAfterBeyondBudget() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            await rig.arm(.jwks, .respond(status: 503, headers: ["Retry-After": "120"]))
            let budget = try rig.budget()
            do throws(HTTPFailure) {
                _ = try await rig.client.send(HTTPRequest(url: rig.url("/jwks")), kind: .read, budget: budget)
                Issue.record("a 503 with a two-minute Retry-After succeeded within a 20 s budget")
            } catch {
                guard case .recoverable(.server(let failure)) = VersolaError(error) else {
                    Issue.record("expected recoverable(server), got \(error)")
                    return
                }
                #expect(failure.status == 503)
                #expect(failure.retryAfter == .seconds(120))
                #expect(failure.failedRequests == 1)
            }
            #expect(rig.clock.sleeps.isEmpty)
            // Until the time passes, every request to that origin fails unsent.
            let origin = try #require(Origin(url: rig.url("/")))
            #expect(await rig.client.cooldown(for: origin) == .seconds(120))
            let thrown4 = await #expect(throws: HTTPFailure.self) {
                _ = try await rig.client.send(
                    HTTPRequest(url: rig.url("/.well-known/openid-configuration")), kind: .read, budget: try rig.budget())
            }
            #expect(thrown4.map(VersolaError.init)?.category == "recoverable" && thrown4.map(VersolaError.init)?.cause == "server", "got \(String(describing: thrown4))")
            #expect(await rig.count(.discovery) == 0)
            rig.clock.advance(by: .seconds(121))
            #expect(await rig.client.cooldown(for: origin) == nil)
            let response = try await rig.client.send(
                HTTPRequest(url: rig.url("/.well-known/openid-configuration")), kind: .read, budget: try rig.budget())
            #expect(response.status == 200)
        }
    }

    @Test("R1 E8: failed requests are counted and elapsed time is measured on the injected clock")
    func budgetAccounting() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            await rig.arm(.discovery, .respond(status: 503), times: nil)
            let budget = try rig.budget(try policy(attempts: 4))
            do throws(HTTPFailure) {
                _ = try await rig.client.send(
                    HTTPRequest(url: rig.url("/.well-known/openid-configuration")), kind: .read, budget: budget)
                Issue.record("an endpoint answering 503 for ever gave a response")
            } catch {
                guard case .recoverable(.server(let failure)) = VersolaError(error) else {
                    Issue.record("expected recoverable(server), got \(error)")
                    return
                }
                #expect(failure.status == 503)
                #expect(failure.failedRequests == 4)
                #expect(failure.elapsed >= rig.clock.sleeps.reduce(.zero, +))
            }
            #expect(await rig.count(.discovery) == 4)
            #expect(rig.clock.sleeps.count == 3)
        }
    }

    @Test("R2: a retry policy outside its bounds fails before any request")
    func policyOutOfBounds() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            var policy = RetryPolicy()
            policy.totalBudget = .seconds(600)
            let thrown5 = #expect(throws: HTTPFailure.self) { try OperationBudget(policy: policy, clock: rig.clock) }
            #expect(thrown5.map(VersolaError.init)?.category == "configuration" && thrown5.map(VersolaError.init)?.cause == "invalidConfiguration", "got \(String(describing: thrown5))")
            do throws(HTTPFailure) {
                _ = try OperationBudget(policy: policy, clock: rig.clock)
            } catch {
                #expect(VersolaError(error).cause == "invalidConfiguration")
            }
            #expect(await rig.idp.provider.requests().isEmpty)
        }
    }

    private func policy(attempts: Int) throws -> RetryPolicy {
        var policy = RetryPolicy()
        policy.maxAttempts = attempts
        try policy.validate()
        return policy
    }
}
