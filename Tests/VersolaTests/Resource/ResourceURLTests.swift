import Foundation
import Testing
import VersolaHTTP

@testable import Versola

/// A19 and issue 40's lookup rule: a resource covers a URL only on its own origin and at or
/// below its path, whole segments, after RFC 3986 normalization.
@Suite("ResourceURL")
struct ResourceURLTests {
    static func url(_ text: String) throws -> ResourceURL { try #require(ResourceURL(text)) }

    @Test("A19: a resource covers itself, a trailing slash aside, and the paths below it")
    func covers() throws {
        let mcp = try Self.url("https://h.example/a_b")
        for text in ["https://h.example/a_b", "https://h.example/a_b/", "https://H.EXAMPLE:443/a_b/tools?x=1", "https://h.example/a_%62"] {
            #expect(mcp.covers(try Self.url(text)), "\(text)")
        }
        #expect(try Self.url("https://h.example").covers(try Self.url("https://h.example/mcp")))
    }

    @Test("A19: never another origin, another path that folds to the same name, a string prefix, or a dot segment out of it")
    func refuses() throws {
        let mcp = try Self.url("https://h.example/a_b")
        for text in [
            "https://h.example/a/b", "https://h.example/a~b", "https://h.example/a%2Fb", "https://h.example/a@b",
            "https://h.example:8443/a_b", "http://h.example/a_b", "https://h.example/a_b/../admin", "https://h.example/a_bc",
            "https://other.example/a_b",
        ] {
            #expect(!mcp.covers(try Self.url(text)), "\(text)")
        }
    }

    @Test("A19: normalized text: dot segments gone, unreserved escapes decoded, others upper case")
    func normalizedText() throws {
        #expect(try Self.url("HTTPS://H.example:443/x/./y/../%7e%2f/").description == "https://h.example/x/~%2F")
    }

    @Test("A19: addresses a remote resource may not send versola to")
    func localNetwork() {
        for host in ["localhost", "a.localhost", "127.0.0.2", "10.0.0.1", "172.16.3.4", "192.168.1.1", "169.254.169.254", "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "2130706433", "0x7f.1", "0.0.0.0"] {
            #expect(Origin(scheme: "https", host: host)?.isLocalNetwork == true, "\(host)")
        }
        for host in ["api.example.com", "8.8.8.8", "172.32.0.1", "2001:db8::1", "cafe.be"] {
            #expect(Origin(scheme: "https", host: host)?.isLocalNetwork == false, "\(host)")
        }
    }
}
