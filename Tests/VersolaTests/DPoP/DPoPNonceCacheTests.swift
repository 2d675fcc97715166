import Foundation
import Testing
import Versola
import VersolaHTTP

@Suite struct DPoPNonceCacheTests {
    let authorizationServer = Origin(scheme: "https", host: "as.example")!
    let resourceServer = Origin(scheme: "https", host: "rs.example")!

    @Test("D3: nonces are kept per origin and a response's DPoP-Nonce is learned for the origin that sent it")
    func perOrigin() {
        let cache = DPoPNonceCache()
        cache.learn(
            from: HTTPResponse(status: 400, headers: ["DPoP-Nonce": "as-1"], origin: authorizationServer))
        #expect(cache.nonce(for: authorizationServer) == "as-1")
        #expect(cache.nonce(for: resourceServer) == nil)
        cache.learn(from: HTTPResponse(status: 200, headers: ["dpop-nonce": "rs-1"], origin: resourceServer))
        cache.learn(from: HTTPResponse(status: 200, headers: ["DPoP-Nonce": "as-2"], origin: authorizationServer))
        #expect(cache.nonce(for: authorizationServer) == "as-2")
        #expect(cache.nonce(for: resourceServer) == "rs-1")
        cache.learn(from: HTTPResponse(status: 200, origin: resourceServer))
        #expect(cache.nonce(for: resourceServer) == "rs-1")
    }

    @Test("D3: the same origin written differently shares its nonce; another port is another origin")
    func originNormalisation() throws {
        let cache = DPoPNonceCache()
        let url = try #require(URL(string: "HTTPS://AS.example:443/token"))
        cache.learn("n", from: try #require(Origin(url: url)))
        #expect(cache.nonce(for: authorizationServer) == "n")
        #expect(cache.nonce(for: try #require(Origin(scheme: "https", host: "as.example", port: 8443))) == nil)
    }

    @Test("D3: values that are not 1*NQCHAR are ignored")
    func invalidValues() {
        let cache = DPoPNonceCache()
        for bad in ["", "with space", "quo\"te", "back\\slash", String(repeating: "a", count: 2000), "é"] {
            cache.learn(bad, from: authorizationServer)
        }
        #expect(cache.nonce(for: authorizationServer) == nil)
    }

    @Test("P8 D3: a snapshot restores into another cache; bad keys are skipped")
    func snapshotRestore() {
        let cache = DPoPNonceCache()
        cache.learn("as-1", from: authorizationServer)
        cache.learn("rs-1", from: Origin(scheme: "http", host: "127.0.0.1", port: 8080)!)
        let snapshot = cache.snapshot()
        #expect(snapshot == ["https://as.example": "as-1", "http://127.0.0.1:8080": "rs-1"])
        let restored = DPoPNonceCache()
        restored.restore(snapshot.merging(["not a url": "x"]) { $1 })
        #expect(restored.snapshot() == snapshot)
        restored.removeAll()
        #expect(restored.snapshot().isEmpty)
    }
}
