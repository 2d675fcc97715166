import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP
import VersolaTesting

/// How the client is known to a resource's authorization server (A19, A17), each against a
/// stand-in of an MCP conformance scenario's server (`modelcontextprotocol/conformance`,
/// `src/scenarios/client/auth/`).
@Suite("ResourceClientScenarios")
struct ResourceClientScenarios {
    typealias Rig = ResourceFirstScenarios.Rig

    @Test("A19: path-inserted metadata not named in the 401, an OpenID Connect discovery document at the server (MCP auth/metadata-var1)")
    func openIDServerMetadata() async throws {
        let rig = try await Rig {
            $0.challengeNamesResourceMetadata = false
            $0.metadata = .openIDConfiguration
        }
        try await withRig(rig) { rig in
            let mcp = rig.resource("/mcp")
            let prepared = try await rig.start(mcp).prepare()
            #expect(prepared.configuration.resource == mcp)
            let asked = await rig.idp.provider.requests(to: .resourceMetadata).map { URLComponents(string: $0.target)?.path ?? "" }
            #expect(asked == [ProtectedResourceMetadata.wellKnownPath + "/mcp"])
            #expect(await rig.idp.provider.requests(to: .registration).count == 1)
        }
    }

    @Test("A19: a client id given: no registration, the login uses it (MCP auth/pre-registration)")
    func preRegistered() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            let mcp = rig.resource("/mcp")
            var start = rig.start(mcp)
            start.clientID = "versola-test"
            let prepared = try await start.prepare()
            #expect(prepared.registered == nil)
            let client = try rig.client(prepared)
            let grant = try await client.login()
            #expect(await rig.idp.provider.requests(to: .registration).isEmpty)
            #expect(try await rig.get(mcp, grant: grant, client: client).status == 200)
        }
    }

    @Test(
        "A19 A17: a secret the registration forced is sent as the server lists (MCP auth/token-endpoint-auth-basic, auth/token-endpoint-auth-post)",
        arguments: ["client_secret_basic", "client_secret_post"])
    func forcedSecret(method: String) async throws {
        let rig = try await Rig {
            $0.registrationIssuesSecret = true
            $0.tokenEndpointAuthMethods = [method]
        }
        try await withRig(rig) { rig in
            let mcp = rig.resource("/mcp")
            let prepared = try await rig.start(mcp).prepare()
            #expect(prepared.configuration.clientSecret != nil)
            let client = try rig.client(prepared)
            let grant = try await client.login()
            #expect(try await rig.get(mcp, grant: grant, client: client).status == 200)
            let exchange = try #require(await rig.idp.provider.requests(to: .token).first)
            let basic = exchange.headers["Authorization"]?.hasPrefix("Basic ") == true
            #expect(basic == (method == "client_secret_basic"), "\(method)")
            #expect((exchange.formValue("client_secret") != nil) == (method == "client_secret_post"), "\(method)")
        }
    }

    @Test("A19: a public client sends no secret at all (MCP auth/token-endpoint-auth-none)")
    func publicClient() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            let prepared = try await rig.start(rig.resource("/mcp")).prepare()
            #expect(prepared.configuration.clientSecret == nil)
            _ = try await rig.client(prepared).login()
            let registration = try #require(await rig.idp.provider.requests(to: .registration).first)
            #expect(String(decoding: registration.body, as: UTF8.self).contains("\"token_endpoint_auth_method\":\"none\""))
            let exchange = try #require(await rig.idp.provider.requests(to: .token).first)
            #expect(exchange.headers["Authorization"] == nil)
            #expect(exchange.formValue("client_secret") == nil)
        }
    }
}
