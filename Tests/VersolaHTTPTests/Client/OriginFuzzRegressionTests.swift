import Foundation
import Testing
import VersolaHTTP

@Suite struct OriginFuzzRegressionTests {
    // Found by fuzz-headers-redirect: a percent-encoded delimiter in the host made an origin
    // whose text did not parse back, so a DPoP nonce stored for it was lost on restore.
    @Test func hostsWithURLDelimitersHaveNoOrigin() throws {
        let url = try #require(URL(string: "https://%2FA%2F%2F/path"))
        #expect(Origin(url: url) == nil)
        #expect(Origin(scheme: "https", host: "a/b") == nil)
        #expect(Origin(scheme: "https", host: "user@host") == nil)
        #expect(Origin(scheme: "https", host: "Example.COM")?.description == "https://example.com")
        #expect(Origin(scheme: "http", host: "[::1]", port: 8080)?.description == "http://[::1]:8080")
    }
}
