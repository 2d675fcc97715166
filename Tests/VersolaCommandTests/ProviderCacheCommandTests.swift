import Foundation
import Testing
import VersolaTestIdP

/// The built `versola` binary with the provider cache (A16): what a cold process asks the
/// provider, counted at the provider.
@Suite("versola provider cache", .serialized)
struct ProviderCacheCommandTests {
    static func counts(_ cli: CLIHarness) async -> (metadata: Int, keys: Int, token: Int) {
        let requests = await cli.idp.provider.requests()
        return (
            requests.filter { $0.target.contains("/.well-known/") }.count, requests.filter { $0.endpoint == .jwks }.count,
            requests.filter { $0.endpoint == .token }.count
        )
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    @Test("A16 L4: a cold versola token --no-agent with a fresh cache asks only the token endpoint; without the cache it asks for metadata and keys too")
    func coldTokenAsksOnlyForTheToken() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let cache = cli.home.path + "/.cache/versola"
            #expect(Self.mode(cache) == 0o700 && Self.mode(cache + "/providers") == 0o700)
            let files = try FileManager.default.contentsOfDirectory(atPath: cache + "/providers")
            #expect(files.count == 2 && files.allSatisfy { Self.mode(cache + "/providers/" + $0) == 0o600 }, "\(files)")

            let before = await Self.counts(cli)
            let cold = try await cli.run(["token", "--no-agent"])
            #expect(cold.status == 0, "\(cold.stderr)")
            let after = await Self.counts(cli)
            #expect(after.metadata == before.metadata && after.keys == before.keys, "\(before) → \(after)")
            #expect(after.token == before.token + 1, "the refresh only")

            try FileManager.default.removeItem(atPath: cache)
            let uncached = try await cli.run(["token", "--no-agent"])
            #expect(uncached.status == 0, "\(uncached.stderr)")
            let last = await Self.counts(cli)
            #expect(last.metadata == after.metadata + 1 && last.keys == after.keys + 1, "\(after) → \(last)")
        }
    }
}
