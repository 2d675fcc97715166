import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

/// Probing is not fetching (A16): a metadata location that answers anything but a document
/// passes to the next at once, with no repeat spent there; the whole search is repeated only when
/// every location failed and one of them failed in a way R5 repeats. Requests are counted at the
/// test provider.
@Suite("DiscoveryProbeScenarios")
struct DiscoveryProbeScenarios {
    /// What a proxy or a web framework answers at a path it does not know.
    static let strayAnswers: [(String, TestFault)] = [
        ("500", .respond(status: 500, body: "")),
        ("login page", .respond(status: 200, headers: ["Content-Type": "text/html"], body: "<html>Sign in</html>")),
        ("redirect", .redirect(location: "https://login.example/?next=%2F.well-known")),
    ]

    static func probes(_ rig: EngineRig) async -> [String] {
        await rig.idp.provider.requests().map(\.target).filter { $0.contains("/.well-known/") }
    }

    @Test("A16: a 500, a login page or a redirect at the RFC 8414 location costs one extra request, never a repeat",
        arguments: 0..<3)
    func strayAnswerAtRFC8414(index: Int) async throws {
        let (name, fault) = Self.strayAnswers[index]
        let rig = try await EngineRig(configure: { $0.requireOpenIDScope = false }, configureClient: { $0.scopes = ["profile"] })
        try await withRig(rig) { rig in
            await rig.idp.provider.arm(TestFaultRule(.oauthMetadata, fault, times: nil))
            _ = try await rig.client.login()
            let probes = await Self.probes(rig)
            #expect(
                probes == ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"],
                "\(name): \(probes)")
        }
    }

    @Test("A16: with openid among the scopes the OpenID location is asked first: one request for an OpenID provider")
    func openIDFirst() async throws {
        let rig = try await EngineRig(issuerPath: "/tenant")
        try await withRig(rig) { rig in
            await rig.idp.provider.arm(TestFaultRule(.oauthMetadata, .respond(status: 500), times: nil))
            _ = try await rig.client.login()
            #expect(await Self.probes(rig) == ["/tenant/.well-known/openid-configuration"])
        }
    }

    @Test("A16: nothing useful anywhere: the error names each URL with its answer, and each is asked once")
    func nothingAnywhere() async throws {
        let rig = try await EngineRig(issuerPath: "/tenant", configure: { $0.metadata = .none })
        try await withRig(rig) { rig in
            let page = TestFault.respond(status: 200, headers: ["Content-Type": "text/html"], body: "<html>Sign in</html>")
            await rig.idp.provider.arm(TestFaultRule(.oauthMetadata, page, times: nil))
            do throws(VersolaError) {
                _ = try await rig.client.metadata()
                Issue.record("no metadata anywhere must fail")
            } catch {
                #expect(error.cause == "invalidConfiguration", "\(error)")
                let text = error.description
                for path in [
                    "/.well-known/oauth-authorization-server/tenant", "/.well-known/openid-configuration/tenant",
                    "/tenant/.well-known/openid-configuration",
                ] {
                    #expect(text.contains(rig.idp.issuer.replacingOccurrences(of: "/tenant", with: "") + path), "\(text)")
                }
                #expect(text.contains("text/html") && text.contains("404"), "\(text)")
            }
            #expect(await Self.probes(rig).count == 3, "each location once")
        }
    }

    @Test("A16 R5 R8: every location failed, one with a 503 and Retry-After: the whole search is repeated after it")
    func wholeSearchRepeated() async throws {
        let rig = try await EngineRig()
        try await withRig(rig) { rig in
            await rig.idp.provider.arm(TestFaultRule(.discovery, .respond(status: 503, headers: ["Retry-After": "2"])))
            await rig.idp.provider.arm(TestFaultRule(.oauthMetadata, .respond(status: 500)))
            let before = rig.clock.monotonicNow
            _ = try await rig.client.metadata()
            #expect(
                await Self.probes(rig) == [
                    "/.well-known/openid-configuration", "/.well-known/oauth-authorization-server",
                    "/.well-known/openid-configuration",
                ])
            #expect(rig.clock.monotonicNow - before >= .seconds(2), "the Retry-After was waited")
        }
    }
}
