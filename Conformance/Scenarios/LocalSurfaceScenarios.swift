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
}
