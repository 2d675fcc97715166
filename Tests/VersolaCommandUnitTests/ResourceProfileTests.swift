import Foundation
import Testing

@testable import VersolaCommand

/// A19's last sentence (issue 40, item 1): a resource's profile name is injective, and a
/// profile serves a URL only when its saved resource covers it.
@Suite("ResourceProfile")
struct ResourceProfileTests {
    @Test("A19: resources whose readable names fold together still get profiles of their own")
    func namesAreInjective() throws {
        let resources = [
            "https://h.example/a_b", "https://h.example/a/b", "https://h.example/a~b", "https://h.example/a%2Fb",
            "https://h.example/a@b", "https://h.example:8443/a_b", "https://h.example/a_b/../admin",
        ]
        let names = resources.compactMap(ResourceProfile.name(for:))
        #expect(names.count == resources.count)
        #expect(Set(names).count == resources.count, "\(names)")
        let name = try #require(ResourceProfile.name(for: "https://api.example.com/mcp"))
        #expect(name.hasPrefix("api.example.com_mcp-"), "readable: \(name)")
        #expect(ResourceProfile.name(for: "https://API.example.com:443/mcp/") == name, "the same resource, normalized")
        let long = try #require(ResourceProfile.name(for: "https://h.example/" + String(repeating: "x", count: 300)))
        #expect(long.count <= 64)
        #expect(ResourceProfile.name(for: "https://h.example/a..b")?.contains("..") == false)
    }

    @Test("A19: a request URL's candidates are its own resource and each path above it")
    func candidates() throws {
        let names = ResourceProfile.candidates(for: "https://h.example/mcp/tools/list?x=1")
        #expect(names.count == 8)
        #expect(names[2] == ResourceProfile.name(for: "https://h.example/mcp"))
        #expect(names[3] == ResourceProfile.name(for: "https://h.example"))
        #expect(names[6] == "h.example_mcp", "a profile an earlier versola named, after every injective name")
    }

    @Test("A19: a saved resource serves only itself and the paths below it on its origin")
    func serves() {
        #expect(ResourceProfile.serves("https://h.example/a_b", url: "https://h.example/a_b/tools"))
        #expect(ResourceProfile.serves("https://h.example", url: "https://h.example/mcp"))
        for url in ["https://h.example/a/b", "https://h.example/a_b/../admin", "https://h.example:8443/a_b", "https://h.example/a_bc"] {
            #expect(!ResourceProfile.serves("https://h.example/a_b", url: url), "\(url)")
        }
        #expect(!ResourceProfile.serves(nil, url: "https://h.example/a_b"))
    }
}
