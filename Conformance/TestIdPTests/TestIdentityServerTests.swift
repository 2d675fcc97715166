import Foundation
import Testing
import VersolaJOSE
import VersolaTestIdP

/// The provider on real loopback sockets, driven by curl (A1, A4, D3 origins, R6 close before reading).
@Suite struct TestIdentityServerTests {
    static func withServer(
        issuerPath: String = "", separateResourceServer: Bool = false,
        _ body: (TestIdentityServer, ProviderTestClock) async throws -> Void
    ) async throws {
        let clock = ProviderTestClock(start: Date())
        let server = try await TestIdentityServer.start(
            issuerPath: issuerPath, separateResourceServer: separateResourceServer, now: clock.source)
        do {
            try await body(server, clock)
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    @Test func servesDiscoveryOnAnEphemeralLoopbackPort() async throws {
        try await Self.withServer { server, _ in
            #expect(server.port != 0)
            #expect(server.issuer == "http://127.0.0.1:\(server.port)")
            let outcome = try await Curl.run(server.issuer + "/.well-known/openid-configuration")
            #expect(outcome.exitCode == 0)
            #expect(outcome.status == 200)
            let document = try JSONValue(parsing: outcome.body)
            #expect(document["issuer"]?.string == server.issuer)
            #expect(document["token_endpoint"]?.string == server.issuer + "/token")
            #expect(await server.provider.issuer == server.issuer)
        }
    }

    // A1: an issuer with a path, served and advertised with it.
    @Test func issuerWithAPathOverSockets() async throws {
        try await Self.withServer(issuerPath: "tenant/") { server, _ in
            #expect(server.issuer == "http://127.0.0.1:\(server.port)/tenant")
            let outcome = try await Curl.run(server.issuer + "/.well-known/openid-configuration")
            #expect(outcome.status == 200)
            let document = try JSONValue(parsing: outcome.body)
            #expect(document["issuer"]?.string == server.issuer)
            #expect(document["jwks_uri"]?.string == server.issuer + "/jwks")
            #expect(try await Curl.run(server.issuer + "/jwks").status == 200)
            let withoutPath = try await Curl.run("http://127.0.0.1:\(server.port)/.well-known/openid-configuration")
            #expect(withoutPath.status == 404)
        }
    }

    // The resource on its own origin: proofs must name that origin (RFC 9449 htu).
    @Test func separateResourceServerIsItsOwnOrigin() async throws {
        try await Self.withServer(separateResourceServer: true) { server, clock in
            #expect(server.resourceURL.hasPrefix("http://127.0.0.1:"))
            #expect(!server.resourceURL.hasPrefix(server.issuer + "/"))
            let idp = ProviderHarness(provider: server.provider, clock: clock, issuer: server.issuer)
            let key = try ClientDPoPKey()
            let tokens = try await idp.tokens(key: key)

            func call(htu: String) async throws -> Curl.Outcome {
                let proof = try key.proof("GET", htu, at: clock.now, accessToken: tokens.accessToken)
                return try await Curl.run(
                    server.resourceURL, ["-H", "Authorization: DPoP \(tokens.accessToken)", "-H", "DPoP: \(proof)"])
            }
            let granted = try await call(htu: server.resourceURL)
            #expect(granted.status == 200)
            #expect(try JSONValue(parsing: granted.body)["sub"] == "248289761001")
            #expect(try await call(htu: server.issuer + "/resource").status == 401)

            // The resource server serves nothing but the resource.
            let origin = String(server.resourceURL.dropLast("/resource".count))
            #expect(try await Curl.run(origin + "/token").status == 404)
            #expect(try await Curl.run(origin + "/.well-known/openid-configuration").status == 404)
            // Its nonce demands come from its own origin's state (D3).
            await server.provider.arm(TestFaultRule(.resource, .demandNonceForever))
            let demand = try await call(htu: server.resourceURL)
            #expect(demand.status == 401)
        }
    }

    // R6: a connection closed before reading: nothing was read, nothing logged.
    @Test func closeBeforeReadingDropsTheNextConnectionUnread() async throws {
        try await Self.withServer { server, _ in
            await server.provider.arm(TestFaultRule(.token, .closeBeforeReading))
            let dropped = try await Curl.run(server.issuer + "/jwks")
            #expect(dropped.exitCode != 0)
            #expect(dropped.status == 0)
            #expect(await server.provider.requests().isEmpty)
            let served = try await Curl.run(server.issuer + "/jwks")
            #expect(served.status == 200)
            #expect(await server.provider.requests(to: .jwks).count == 1)
        }
    }

    @Test func closeAfterReadingAndResetOverSockets() async throws {
        try await Self.withServer { server, _ in
            await server.provider.arm(TestFaultRule(.jwks, .closeAfterReading))
            let closed = try await Curl.run(server.issuer + "/jwks")
            #expect(closed.exitCode == 52)  // empty reply from server
            #expect(await server.provider.requests(to: .jwks).count == 1)

            await server.provider.arm(TestFaultRule(.jwks, .reset))
            let reset = try await Curl.run(server.issuer + "/jwks")
            #expect(reset.exitCode == 56)  // failure receiving data
            #expect(reset.status == 0)

            await server.provider.arm(TestFaultRule(.jwks, .respond(status: 503, headers: ["Retry-After": "7"])))
            let busy = try await Curl.run(server.issuer + "/jwks")
            #expect(busy.status == 503)
            #expect(busy.headerBlock.lowercased().contains("retry-after: 7\r\n"))
        }
    }
}
