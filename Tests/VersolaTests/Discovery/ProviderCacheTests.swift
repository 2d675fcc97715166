import Foundation
import Testing
import VersolaHTTP
import VersolaTesting

@testable import Versola

/// Metadata and key sets kept between processes (A16, L4, L8): each "process" here is a new
/// client on the same cache directory, a scripted transport counting what it is asked, and the
/// injected clock deciding freshness.
@Suite("ProviderCacheTests")
struct ProviderCacheTests {
    let harness = EngineHarness()
    let home: TemporaryDirectory
    let cache: ProviderCache
    let sender: EndpointSender

    init() throws {
        home = try TemporaryDirectory()
        cache = ProviderCache(directory: home.url.appendingPathComponent("cache/versola/providers"))
        let environment = EngineEnvironment(
            http: RetryingClient(transport: harness.transport, clock: harness.clock, random: SeededRandomSource(seed: 7)),
            log: harness.log, providerCache: cache)
        sender = EndpointSender(environment: environment)
    }

    /// Discovery as a new process does it: a new client on the same cache.
    func discover() async throws -> ProviderMetadata {
        try await DiscoveryClient(configuration: harness.configuration, sender: sender).metadata(budget: harness.budget())
    }

    var metadataFile: String { cache.path(.metadata, issuer: ProviderFixture.issuer) }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        stat(path, &info)
        return info.st_mode & 0o777
    }

    @Test("A16: the lifetime is the answer's max-age, a day without one, a week at most, none with no-store or no-cache")
    func lifetimes() {
        #expect(ProviderCache.lifetime(cacheControl: nil) == .seconds(86_400))
        #expect(ProviderCache.lifetime(cacheControl: "public, max-age=60") == .seconds(60))
        #expect(ProviderCache.lifetime(cacheControl: "max-age=\"120\"") == .seconds(120))
        #expect(ProviderCache.lifetime(cacheControl: "max-age=99999999") == .seconds(604_800))
        #expect(ProviderCache.lifetime(cacheControl: "max-age=nonsense") == .seconds(86_400))
        #expect(ProviderCache.lifetime(cacheControl: "no-store") == .zero)
        #expect(ProviderCache.lifetime(cacheControl: "max-age=60, No-Cache") == .zero)
    }

    @Test("A16 L4: metadata is kept user-only and a new process uses it without a request until max-age passes")
    func metadataKeptUntilMaxAge() async throws {
        var headers = HTTPHeaders()
        headers.add("Cache-Control", "max-age=60")
        harness.transport.script(
            ProviderFixture.discoveryPath, .json(ProviderFixture.discovery(), headers: headers),
            .json(ProviderFixture.discovery()))
        let umask = Glibc.umask(0)
        defer { Glibc.umask(umask) }
        _ = try await discover()
        #expect(harness.transport.requests.count == 1)
        #expect(mode(cache.directory.path) == 0o700 && mode(cache.directory.deletingLastPathComponent().path) == 0o700)
        #expect(mode(metadataFile) == 0o600)

        let kept = try await discover()
        #expect(kept.tokenEndpoint.absoluteString == "https://idp.example/realms/main/token")
        #expect(harness.transport.requests.count == 1, "a cold process with a fresh cache asks nothing")

        harness.clock.advance(by: .seconds(61))
        _ = try await discover()
        #expect(harness.transport.requests.count == 2, "past max-age the document is fetched again")
    }

    @Test("A1 A16: a kept document is used only for the issuer it was fetched for")
    func anotherIssuersDocumentIsNotUsed() async throws {
        try harness.serveProvider()
        _ = try await discover()
        var other = harness.configuration
        other.issuer = "https://idp.example/realms/other"
        // The file of one issuer put where another's would be (a collision, a copy by hand).
        try FileManager.default.copyItem(atPath: metadataFile, toPath: cache.path(.metadata, issuer: other.issuer))
        harness.transport.script(
            "/realms/other/.well-known/openid-configuration",
            .json(ProviderFixture.discovery(["issuer": .string(other.issuer)])))
        let metadata = try await DiscoveryClient(configuration: other, sender: sender).metadata(budget: harness.budget())
        #expect(metadata.issuer == other.issuer)
        #expect(harness.transport.requests(to: "/realms/other/.well-known/openid-configuration").count == 1)
    }

    @Test(
        "A16 L8: a corrupt, group-writable or foreign cache file is ignored with a message and replaced",
        arguments: ["corrupt", "group-writable", "foreign"])
    func untrustedFileIsIgnoredAndReplaced(damage: String) async throws {
        try harness.serveProvider()
        _ = try await discover()
        switch damage {
        case "corrupt":
            try Data("{\"issuer\":".utf8).write(to: URL(fileURLWithPath: metadataFile))
        case "group-writable":
            chmod(metadataFile, 0o620)
        default:
            guard getuid() == 0 else { return }  // only root can give a file away
            chown(metadataFile, 65_534, 65_534)
        }
        _ = try await discover()
        #expect(harness.transport.requests(to: ProviderFixture.discoveryPath).count == 2, "\(damage): fetched again")
        #expect(harness.log.recorded.contains { $0.level == .warning && $0.message.contains("provider cache") }, "\(damage)")
        var info = stat()
        #expect(stat(metadataFile, &info) == 0 && info.st_uid == getuid() && info.st_mode & 0o777 == 0o600)
        _ = try await discover()
        #expect(harness.transport.requests(to: ProviderFixture.discoveryPath).count == 2, "\(damage): the new copy is used")
    }

    @Test("A7 A16: a kept key set serves a new process; a token naming a key it lacks fetches it again")
    func keySetKeptAndRefetchedForAnUnknownKey() async throws {
        harness.transport.script(
            ProviderFixture.jwksPath, .json(try ProviderFixture.jwks(["rsa-1"])), .json(try ProviderFixture.jwks(["rsa-1", "ec-1"])))
        let uri = try #require(URL(string: ProviderFixture.issuer + "/certs"))
        _ = try await JWKSCache(jwksURI: uri, sender: sender, issuer: ProviderFixture.issuer).keySet(budget: harness.budget())
        let cold = JWKSCache(jwksURI: uri, sender: sender, issuer: ProviderFixture.issuer)
        let kept = try await cold.keySet(budget: harness.budget())
        #expect(harness.transport.requests.count == 1, "a cold process with a fresh cache asks nothing")
        #expect(kept.keys.count == 1)
        let refetched = try await cold.refetch(unlessSatisfied: { $0.keys.count > 1 }, budget: harness.budget())
        #expect(refetched?.keys.count == 2)
        #expect(harness.transport.requests.count == 2)
        let later = try await JWKSCache(jwksURI: uri, sender: sender, issuer: ProviderFixture.issuer).keySet(budget: harness.budget())
        #expect(later.keys.count == 2, "the refetched set replaced the kept one")
        // A set kept for another key set URL is not used.
        let moved = try #require(URL(string: ProviderFixture.issuer + "/keys"))
        harness.transport.script("/realms/main/keys", .json(try ProviderFixture.jwks(["ec-1"])))
        _ = try await JWKSCache(jwksURI: moved, sender: sender, issuer: ProviderFixture.issuer).keySet(budget: harness.budget())
        #expect(harness.transport.requests.count == 3)
    }

    @Test("L4 L8: a cache directory another user owns, or others may write, is neither used nor written into")
    func untrustedDirectoryIsRefused() async throws {
        let parent = cache.directory.deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: cache.directory.path, withIntermediateDirectories: true)
        chmod(parent, 0o777)
        try harness.serveProvider()
        _ = try await discover()
        #expect(!FileManager.default.fileExists(atPath: metadataFile), "nothing written under an open directory")
        #expect(mode(parent) == 0o777, "and its mode left as it was")
        #expect(harness.log.recorded.contains { $0.message.contains("writable by other users") })
    }
}
