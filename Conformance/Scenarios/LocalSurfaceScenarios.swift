import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

/// Scenarios for the smaller doors of the local attack surface: one loopback check shared by
/// configuration and transport, the bounded DPoP nonce cache, end-session URLs, and attempt
/// timeouts inside the operation's budget.
@Suite struct LocalSurfaceScenarios {
    @Test("A1: configuration and transport agree on loopback; 127.0.0.1.example.net is not loopback", arguments: [
        ("http://127.0.0.1:8080", true), ("http://127.8.9.10", true), ("http://localhost:1", true), ("http://[::1]:9", true),
        ("http://127.0.0.1.example.net", false), ("http://127.attacker.example", false), ("http://127.0.0.1x", false),
        ("http://127.0.0.256", false), ("http://127.1", false), ("http://localhost.example", false),
    ])
    func oneLoopbackCheck(_ issuer: String, _ loopback: Bool) throws {
        let url = try #require(URL(string: issuer))
        let origin = try #require(Origin(url: url))
        #expect(origin.isLoopback == loopback)
        let configuration = ClientConfiguration(issuer: issuer, clientID: "cli")
        if loopback {
            try configuration.validate()
        } else {
            #expect(throws: VersolaError.configuration(.invalidConfiguration("issuer must use https (plain http only on loopback)"))) {
                try configuration.validate()
            }
        }
    }

    // MARK: A15: the end-session address

    static func metadata(endSession: String?) throws -> ProviderMetadata {
        var members = [
            #""issuer":"https://id.example""#, #""authorization_endpoint":"https://id.example/auth""#,
            #""token_endpoint":"https://id.example/token""#, #""jwks_uri":"https://id.example/jwks""#,
        ]
        if let endSession { members.append(#""end_session_endpoint":"\#(endSession)""#) }
        return try ProviderMetadata(parsing: Array("{\(members.joined(separator: ","))}".utf8), configuredIssuer: "https://id.example")
    }

    static func query(of url: String) throws -> [String: String] {
        let components = try #require(URLComponents(string: url))
        return Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { first, _ in first }
    }

    @Test("A15: the end-session URL carries id_token_hint and client_id, and post_logout_redirect_uri only when configured; the shareable one no hint")
    func endSessionURL() throws {
        var configuration = ClientConfiguration(issuer: "https://id.example", clientID: "cli+1")
        let metadata = try Self.metadata(endSession: "https://id.example/logout?ui=1")
        let plain = try EndSessionRequest(metadata: metadata, idToken: "h.p.s", configuration: configuration)
        #expect(plain.url.hasPrefix("https://id.example/logout?ui=1&"))
        #expect(try Self.query(of: plain.url) == ["ui": "1", "id_token_hint": "h.p.s", "client_id": "cli+1"])
        // What may be shown or put on a command line holds no ID token (the browser gets the
        // hint through a one-time loopback page, OneTimeRedirect).
        #expect(plain.shareableURL.hasPrefix("https://id.example/logout?ui=1&"))
        #expect(try Self.query(of: plain.shareableURL) == ["ui": "1", "client_id": "cli+1"])

        configuration.postLogoutRedirectURI = "http://127.0.0.1:8765/signed-out?x=a&y=b"
        try configuration.validate()
        let redirected = try EndSessionRequest(metadata: metadata, idToken: "h.p.s", configuration: configuration)
        #expect(
            try Self.query(of: redirected.url) == [
                "ui": "1", "id_token_hint": "h.p.s", "client_id": "cli+1",
                "post_logout_redirect_uri": "http://127.0.0.1:8765/signed-out?x=a&y=b",
            ])
        #expect(try Self.query(of: redirected.shareableURL)["id_token_hint"] == nil)
        #expect(try Self.query(of: redirected.shareableURL)["post_logout_redirect_uri"] == "http://127.0.0.1:8765/signed-out?x=a&y=b")
        let noToken = try EndSessionRequest(
            metadata: try Self.metadata(endSession: "https://id.example/logout"), idToken: nil, configuration: configuration)
        #expect(noToken.url.hasPrefix("https://id.example/logout?client_id="))
        #expect(try Self.query(of: noToken.url)["id_token_hint"] == nil)
    }

    @Test("A15: a provider without end_session_endpoint is told plainly; a bad post-logout redirect is refused")
    func noEndSessionEndpoint() throws {
        var configuration = ClientConfiguration(issuer: "https://id.example", clientID: "cli")
        let metadata = try Self.metadata(endSession: nil)
        do throws(VersolaError) {
            _ = try EndSessionRequest(metadata: metadata, idToken: "h.p.s", configuration: configuration)
            Issue.record("an end-session URL without an endpoint")
        } catch {
            #expect(error.cause == "providerUnsupported")
            #expect(error.description.contains("no end_session_endpoint"))
        }
        for bad in ["/relative", "http://example.com/out", "https://a.example/out#frag", "http://127.0.0.1.example.net/"] {
            configuration.postLogoutRedirectURI = bad
            #expect(throws: VersolaError.self, "\(bad)") { try configuration.validate() }
        }
    }

    // MARK: D3 P8: the nonce cache is bounded and the record always reads back

    @Test("D3 P8: the nonce cache keeps the 64 most recently used of 1100 origins; the saved session reads back")
    func boundedNonceCache() async throws {
        let cache = DPoPNonceCache()
        let kept = try #require(Origin(scheme: "https", host: "rs-0.example"))
        let nonce = String(repeating: "n", count: 1000)
        for index in 0..<1100 {
            cache.learn(nonce + "\(index)", from: try #require(Origin(scheme: "https", host: "rs-\(index).example")))
            // One origin stays in use all along: it is never the least recently used.
            _ = cache.nonce(for: kept)
        }
        #expect(cache.count == DPoPNonceCache.defaultCapacity)
        #expect(cache.nonce(for: kept) == nonce + "0")
        #expect(cache.nonce(for: try #require(Origin(scheme: "https", host: "rs-1099.example"))) == nonce + "1099")
        #expect(cache.nonce(for: try #require(Origin(scheme: "https", host: "rs-1.example"))) == nil)

        let home = FileManager.default.temporaryDirectory.appendingPathComponent("versola-nonces-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let store = try FileSessionStore(
            profile: "default", directory: home.appendingPathComponent("state"),
            keySource: KeyFileKeySource(stateHome: home.appendingPathComponent("state")))
        var record = SessionRecord(
            issuer: "https://id.example", clientID: "cli", subject: "alice", refreshToken: "refresh-SECRET",
            idToken: "h.p.s", dpopNonces: cache.snapshot())
        try await store.save(record)
        let restored = try #require(try await store.load())
        #expect(restored.refreshToken == "refresh-SECRET")
        #expect(restored.dpopNonces.count == DPoPNonceCache.defaultCapacity)

        // A record carrying 1100 nonces (an older cache) would pass the store's size limit: the
        // nonces are left out of what is written, never the session.
        record.dpopNonces = Dictionary(uniqueKeysWithValues: (0..<1100).map { ("https://rs-\($0).example", nonce) })
        // blocking: serializing 1.1 MB of nonces takes about half a second, off the task pool
        let serializedSize = await DedicatedThread.run { [record] in record.serialized().count }
        #expect(serializedSize <= SessionRecord.maximumSerializedSize)
        try await store.save(record)
        let survivor = try #require(try await store.load())
        #expect(survivor.refreshToken == "refresh-SECRET")
        #expect(survivor.subject == "alice")
        #expect(survivor.dpopNonces.isEmpty)
        let reloaded = DPoPNonceCache()
        reloaded.restore(record.dpopNonces)
        #expect(reloaded.count == DPoPNonceCache.defaultCapacity)
    }
}
