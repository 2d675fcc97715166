import Foundation
import Testing
import VersolaHTTP
import VersolaTesting

@testable import Versola

/// The order of the metadata locations and the search across them (A16), against a scripted
/// transport: which locations are asked, how often, and what the failure says.
@Suite("MetadataSearchTests")
struct MetadataSearchTests {
    static let oauthPath = "/.well-known/oauth-authorization-server/realms/main"
    static let insertedPath = "/.well-known/openid-configuration/realms/main"

    private func fetch(_ harness: EngineHarness, _ configuration: ClientConfiguration? = nil) async throws
        -> Result<ProviderMetadata, VersolaError>
    {
        let client = DiscoveryClient(configuration: configuration ?? harness.configuration, sender: harness.sender)
        let budget = try harness.budget()
        do throws(VersolaError) {
            return .success(try await client.metadata(budget: budget))
        } catch {
            return .failure(error)
        }
    }

    @Test("A16: RFC 8414 §5's order without openid; the OpenID location first with it; a resource-first sign-in keeps the MCP order")
    func order() {
        let issuer = "https://h/tenant"
        let rfc8414 = [
            "https://h/.well-known/oauth-authorization-server/tenant", "https://h/.well-known/openid-configuration/tenant",
            "https://h/tenant/.well-known/openid-configuration",
        ]
        #expect(MetadataLocation.candidates(forIssuer: issuer, openIDFirst: false).map(\.url.absoluteString) == rfc8414)
        #expect(
            MetadataLocation.candidates(forIssuer: issuer, openIDFirst: true).map(\.url.absoluteString)
                == [rfc8414[2], rfc8414[0], rfc8414[1]])
        #expect(
            MetadataLocation.candidates(forIssuer: "https://h/", openIDFirst: false).map(\.url.absoluteString) == [
                "https://h/.well-known/oauth-authorization-server", "https://h/.well-known/openid-configuration",
            ])
        var configuration = ClientConfiguration(issuer: issuer, clientID: "c")
        #expect(MetadataLocation.asksOpenIDFirst(configuration), "the default scopes name openid")
        configuration.scopes = ["profile"]
        #expect(!MetadataLocation.asksOpenIDFirst(configuration))
        configuration.scopes = ["openid", "profile"]
        configuration.resource = "https://api.example/mcp"
        #expect(!MetadataLocation.asksOpenIDFirst(configuration), "A19: RFC 9728, then RFC 8414's order")
    }

    @Test("A16: a timeout and a broken connection pass to the next location at once, with no repeat there")
    func timeoutMovesOn() async throws {
        let harness = EngineHarness()
        let origin = try #require(Origin(scheme: "https", host: "idp.example"))
        harness.transport.script(ProviderFixture.discoveryPath, .failure(.timedOut(origin: origin, requestBytesWritten: true)))
        harness.transport.script(Self.oauthPath, .failure(.failedAfterSending(origin: origin)))
        harness.transport.script(Self.insertedPath, .json(ProviderFixture.discovery()))
        let metadata = try await fetch(harness).get()
        #expect(metadata.issuer == ProviderFixture.issuer)
        #expect(harness.transport.requests.map(\.url.path) == [ProviderFixture.discoveryPath, Self.oauthPath, Self.insertedPath])
        #expect(harness.clock.sleeps.isEmpty)
    }

    @Test("A16 R5: no connection ends the search at once (every location is on that origin) and repeats it under the budget")
    func unreachableOriginRepeatsTheSearch() async throws {
        let harness = EngineHarness()
        let origin = try #require(Origin(scheme: "https", host: "idp.example"))
        harness.transport.script(
            ProviderFixture.discoveryPath, .failure(.couldNotConnect(origin: origin)), .json(ProviderFixture.discovery()))
        _ = try await fetch(harness).get()
        #expect(harness.transport.requests.map(\.url.path) == [ProviderFixture.discoveryPath, ProviderFixture.discoveryPath])
        #expect(harness.clock.sleeps.count == 1)
    }

    @Test("A16 R5 R8: a 429 whose Retry-After does not fit the budget stops the search without waiting; the error carries it")
    func retryAfterBeyondBudget() async throws {
        let harness = EngineHarness()
        var headers = HTTPHeaders()
        headers.add("Retry-After", "600")
        harness.transport.script(ProviderFixture.discoveryPath, .status(429, headers: headers))
        let result = try await fetch(harness)
        guard case .failure(.recoverable(.server(let failure))) = result else {
            Issue.record("expected a server failure, got \(result)")
            return
        }
        #expect(failure.status == 429 && failure.retryAfter == .seconds(600))
        #expect(harness.transport.requests.count == 3, "each location once, then no repeat")
        #expect(harness.clock.sleeps.isEmpty)
        let closed = try #require(Origin(scheme: "https", host: "idp.example"))
        #expect(await harness.environment.http.cooldown(for: closed) != nil, "R8: the origin is closed until then")
    }

    @Test("A16 R5: repeats of the whole search stop after the policy's attempts")
    func searchesAreBounded() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.discoveryPath, .status(502), .status(502), .status(502), .status(502))
        let result = try await fetch(harness)
        guard case .failure(.recoverable(.server(let failure))) = result else {
            Issue.record("expected a server failure, got \(result)")
            return
        }
        #expect(failure.status == 502)
        let attempts = harness.configuration.retryPolicy.maxAttempts
        #expect(harness.transport.requests.count == 3 * attempts)
        #expect(harness.clock.sleeps.count == attempts - 1)
    }

    @Test("A16 L5: provider text in the answers is cleaned of control characters and bounded")
    func cleaned() {
        #expect(MetadataSearch.cleaned("text/html\u{1B}]0;x\u{07}\r\n") == "text/html]0;x")
        let long = MetadataSearch.cleaned(String(repeating: "a", count: 500))
        #expect(long.count == 60 && long.hasSuffix("…"))
    }
}
