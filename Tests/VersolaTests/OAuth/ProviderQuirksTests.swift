import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTesting

/// The glewlwyd workaround (an empty-bodied 400 to a refresh is invalid_grant) holds only for
/// that exact shape, and can be turned off.
@Suite("ProviderQuirksTests")
struct ProviderQuirksTests {
    private func refresh(_ answer: ScriptedTransport.Step, quirks: ProviderQuirks = ProviderQuirks()) async throws
        -> VersolaError?
    {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.tokenPath, answer)
        var configuration = harness.configuration
        configuration.providerQuirks = quirks
        let endpoint = TokenEndpoint(metadata: try ProviderFixture.metadata(), configuration: configuration, sender: harness.sender)
        let budget = try harness.budget()
        do throws(VersolaError) {
            _ = try await endpoint.refresh(refreshToken: "rt-secret", budget: budget)
            return nil
        } catch {
            return error
        }
    }

    @Test("E9 S7: an empty-bodied 400 to a refresh is grantRejected (glewlwyd), with or without white space")
    func emptyBadRequest() async throws {
        #expect(try await refresh(.status(400)) == .reauthenticate(.grantRejected))
        #expect(
            try await refresh(.response(status: 400, headers: [:], body: Array("\r\n".utf8)))
                == .reauthenticate(.grantRejected))
    }

    @Test(
        "E8 S7: a 400 to a refresh without an OAuth error body is a server failure that keeps the session",
        arguments: [
            ("text/html", "<html><body><h1>400 Bad Request</h1>nginx</body></html>"),
            ("application/json", #"{"message":"bad request"}"#),
            ("application/json", "{}"),
            ("text/plain", "Bad Request"),
        ])
    func otherBadRequests(contentType: String, body: String) async throws {
        let error = try await refresh(.response(status: 400, headers: ["Content-Type": contentType], body: Array(body.utf8)))
        guard case .recoverable(.server(let failure)) = error else {
            Issue.record("expected recoverable(server), got \(String(describing: error))")
            return
        }
        #expect(failure.status == 400)
    }

    @Test("E8: with the workaround off, an empty-bodied 400 is a server failure too")
    func workaroundOff() async throws {
        let error = try await refresh(.status(400), quirks: .none)
        guard case .recoverable(.server(let failure)) = error else {
            Issue.record("expected recoverable(server), got \(String(describing: error))")
            return
        }
        #expect(failure.status == 400)
    }

    @Test("E9: the workaround never hides a real OAuth error, nor applies to other statuses")
    func onlyTheExactShape() throws {
        let origin = try #require(Origin(scheme: "https", host: "op.example"))
        func answer(_ status: Int, _ body: String = "") -> HTTPResponse {
            HTTPResponse(status: status, body: Array(body.utf8), origin: origin)
        }
        let quirks = ProviderQuirks()
        #expect(quirks.refusesRefreshToken(answer(400), error: nil))
        #expect(!quirks.refusesRefreshToken(answer(401), error: nil))
        #expect(!quirks.refusesRefreshToken(answer(500), error: nil))
        #expect(!quirks.refusesRefreshToken(answer(400, "<html></html>"), error: nil))
        #expect(!ProviderQuirks.none.refusesRefreshToken(answer(400), error: nil))
    }
}
