import Foundation
import Testing
import Versola
import VersolaHTTP

@Suite("RevocationTests")
struct RevocationTests {
    private func revoke(_ harness: EngineHarness) async throws -> Bool {
        let url = try #require(try ProviderFixture.metadata().revocationEndpoint)
        let endpoint = RevocationEndpoint(url: url, clientID: ProviderFixture.clientID, sender: harness.sender)
        return await endpoint.revoke(refreshToken: "rt-secret", budget: try harness.budget())
    }

    @Test("A9: revocation posts token, token_type_hint=refresh_token and client_id")
    func requestShape() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.revocationPath, .status(200))
        #expect(try await revoke(harness))
        let request = try #require(harness.transport.requests.first)
        #expect(request.method == .post)
        #expect(request.url.absoluteString == "https://idp.example/realms/main/revoke")
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        let form = try #require(harness.transport.form(of: request))
        #expect(form.names == ["token", "token_type_hint", "client_id"])
        #expect(form["token"] == "rt-secret")
        #expect(form["token_type_hint"] == "refresh_token")
        #expect(form["client_id"] == ProviderFixture.clientID)
    }

    @Test("A9: a refusal is reported as unconfirmed, never thrown, and logs no token")
    func refusal() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.revocationPath, .json(#"{"error":"unsupported_token_type"}"#, status: 400))
        #expect(try await revoke(harness) == false)
        #expect(harness.transport.requests.count == 1)
        #expect(harness.log.recorded.contains { $0.message.contains("unsupported_token_type") })
        #expect(!harness.log.recorded.contains { $0.message.contains("rt-secret") })
    }

    @Test("A9 R5: revocation is repeated after 503s, then reported unconfirmed")
    func repeatedThenGivenUp() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.revocationPath, .status(503))
        #expect(try await revoke(harness) == false)
        #expect(harness.transport.requests.count == 3, "the default policy's three attempts")
    }

    @Test("A9 R5: revocation succeeds after a transport failure")
    func repeatedAfterTransportFailure() async throws {
        let harness = EngineHarness()
        let origin = try #require(Origin(scheme: "https", host: "idp.example"))
        harness.transport.script(ProviderFixture.revocationPath, .failure(.couldNotConnect(origin: origin)), .status(200))
        #expect(try await revoke(harness))
        #expect(harness.transport.requests.count == 2)
    }
}
