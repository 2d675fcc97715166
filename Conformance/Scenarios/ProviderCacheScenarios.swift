import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP
import VersolaTesting

/// Metadata and key sets kept between processes (A16), against the test provider: a process is
/// a new client on the same cache directory, and the provider counts what it is asked.
@Suite("ProviderCacheScenarios")
struct ProviderCacheScenarios {
    /// A client as a new process makes it: its own environment, the rig's clock and browser.
    static func coldClient(_ rig: EngineRig, cache: ProviderCache?) async throws -> OpenIDClient {
        let configuration = await rig.client.configuration
        let http = RetryingClient(
            transport: CurlTransport(), clock: rig.clock, random: SystemRandomSource(), defaultOptions: configuration.transport)
        return try OpenIDClient(
            configuration: configuration, environment: EngineEnvironment(http: http, providerCache: cache), browser: rig.browser)
    }

    static func discoveryAndKeyRequests(_ rig: EngineRig) async -> Int {
        await rig.idp.provider.requests().filter { $0.target.contains("/.well-known/") || $0.endpoint == .jwks }.count
    }

    @Test("A16: a cold process with a fresh cache signs in and refreshes with no discovery or key set request")
    func coldProcessAsksNothing() async throws {
        let home = try TemporaryDirectory()
        let cache = ProviderCache(directory: home.url.appendingPathComponent("versola/providers"))
        let rig = try await EngineRig(providerCache: cache)
        try await withRig(rig) { rig in
            _ = try await rig.client.login()
            let warm = await Self.discoveryAndKeyRequests(rig)
            #expect(warm == 2, "the first process discovers and fetches the keys")

            let cold = try await Self.coldClient(rig, cache: cache)
            let grant = try await cold.login()
            _ = try await cold.refresh(grant)
            #expect(await Self.discoveryAndKeyRequests(rig) == warm, "nothing asked again")

            let uncached = try await Self.coldClient(rig, cache: nil)
            _ = try await uncached.login()
            #expect(await Self.discoveryAndKeyRequests(rig) == warm + 2, "without the cache a process asks both")

            // The provider's clock stays: only the metadata is read a day later.
            rig.clock.advance(by: .seconds(86_401))
            _ = try await Self.coldClient(rig, cache: cache).metadata()
            #expect(await Self.discoveryAndKeyRequests(rig) == warm + 3, "a day later (no max-age) it is asked again")
        }
    }

    @Test("A7 A16: after a key rotation a cold process's kept key set lacks the new key: it fetches the set once")
    func rotatedKeysAreFetched() async throws {
        let home = try TemporaryDirectory()
        let cache = ProviderCache(directory: home.url.appendingPathComponent("versola/providers"))
        let rig = try await EngineRig(providerCache: cache)
        try await withRig(rig) { rig in
            _ = try await rig.client.login()
            try await rig.idp.provider.rotateSigningKeys(retainPrevious: false)
            _ = try await Self.coldClient(rig, cache: cache).login()
            #expect(await rig.idp.provider.requests(to: .jwks).count == 2)
            #expect(await rig.idp.provider.requests(to: .discovery).count == 1)
        }
    }

    @Test("A16: a token endpoint of a kept copy that answers 404 makes the next operation discover again")
    func notFoundEndpointForgetsTheKeptCopy() async throws {
        let home = try TemporaryDirectory()
        let cache = ProviderCache(directory: home.url.appendingPathComponent("versola/providers"))
        let rig = try await EngineRig(providerCache: cache)
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            let cold = try await Self.coldClient(rig, cache: cache)
            await rig.idp.provider.arm(TestFaultRule(.token, .respond(status: 404)))
            do throws(VersolaError) {
                _ = try await cold.refresh(grant)
                Issue.record("a 404 at the token endpoint must fail")
            } catch {
                #expect(error.category == "recoverable", "\(error)")
            }
            #expect(await rig.idp.provider.requests(to: .discovery).count == 1, "the kept copy was used")
            _ = try await cold.refresh(grant)
            #expect(await rig.idp.provider.requests(to: .discovery).count == 2, "the stale copy was forgotten")
            // Fetched anew, the document is kept again for the next process.
            _ = try await Self.coldClient(rig, cache: cache).metadata()
            #expect(await rig.idp.provider.requests(to: .discovery).count == 2)
        }
    }
}
