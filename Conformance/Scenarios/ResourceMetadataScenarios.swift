import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP
import VersolaTesting

/// Where a resource's metadata is and what it may name (A19 as the MCP 2026-07-28 revision
/// states it), each against a stand-in of the server shape an MCP conformance scenario
/// (`modelcontextprotocol/conformance`, `src/scenarios/client/auth/`) sets up.
@Suite("ResourceMetadataScenarios")
struct ResourceMetadataScenarios {
    typealias Rig = ResourceFirstScenarios.Rig

    @Test("A19: root metadata naming the origin, not in the 401, is used; the origin is the resource sent (MCP auth/metadata-var2)")
    func rootMetadata() async throws {
        let rig = try await Rig {
            $0.protectedResourceMetadata = .root
            $0.challengeNamesResourceMetadata = false
        }
        try await withRig(rig) { rig in
            let mcp = rig.resource("/mcp")
            let origin = rig.resource("")
            let prepared = try await rig.start(mcp).prepare()
            #expect(prepared.configuration.resource == origin, "the document's resource is the one sent")
            let client = try rig.client(prepared)
            let grant = try await client.login()
            let authorize = try #require(await rig.idp.provider.requests(to: .authorize).first)
            #expect(URLComponents(string: authorize.target)?.queryItems?.first { $0.name == "resource" }?.value == origin)
            #expect(try await rig.get(mcp, grant: grant, client: client).status == 200)
            let asked = await rig.idp.provider.requests(to: .resourceMetadata).map { URLComponents(string: $0.target)?.path ?? "" }
            #expect(asked == [ProtectedResourceMetadata.wellKnownPath + "/mcp", ProtectedResourceMetadata.wellKnownPath])
        }
    }

    @Test("A19: the 401's resource_metadata comes first, then the well-known locations (MCP auth/metadata-var3)")
    func challengeLocationFirst() async throws {
        let rig = try await Rig { $0.protectedResourceMetadata = .custom("/custom/metadata/location.json") }
        try await withRig(rig) { rig in
            let mcp = rig.resource("/mcp")
            let challenge = WWWAuthenticate(headers: try await rig.get(mcp).headers)
            let prepared = try await rig.start(mcp, challenge: challenge).prepare()
            #expect(prepared.configuration.resource == mcp)
            let asked = await rig.idp.provider.requests(to: .resourceMetadata).map { URLComponents(string: $0.target)?.path ?? "" }
            #expect(asked == ["/custom/metadata/location.json"])
            let locations = try ProtectedResourceMetadata.locations(
                for: mcp, named: rig.resource("/custom/metadata/location.json"))
            #expect(locations.map(\.path) == ["/custom/metadata/location.json", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"])
        }
    }

    @Test("A19: a remote resource naming its metadata on a loopback service is refused, the URL named, nothing fetched there")
    func metadataLocationOnAnotherLoopbackPort() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            let elsewhere = rig.idp.issuer + ProtectedResourceMetadata.wellKnownPath
            await rig.idp.provider.configure { $0.protectedResourceMetadata = .custom(elsewhere) }
            let mcp = rig.resource("/mcp")
            let challenge = WWWAuthenticate(headers: try await rig.get(mcp).headers)
            await rig.idp.provider.clearRequestLog()
            await ResourceFirstScenarios.expectConfiguration(rig.start(mcp, challenge: challenge), mentioning: elsewhere)
            #expect(await rig.idp.provider.requests().isEmpty, "nothing is fetched from the URL refused, nor anywhere after")
            let url = try #require(URL(string: elsewhere))
            #expect(!ProtectedResourceMetadata.allowsMetadataLocation(url, for: mcp))
            #expect(ProtectedResourceMetadata.allowsMetadataLocation(try #require(URL(string: "https://meta.example/prm")), for: mcp))
            #expect(!ProtectedResourceMetadata.allowsMetadataLocation(try #require(URL(string: "https://10.1.2.3/prm")), for: mcp))
            #expect(!ProtectedResourceMetadata.allowsMetadataLocation(try #require(URL(string: "https://[fe80::1]/prm")), for: mcp))
            #expect(!ProtectedResourceMetadata.allowsMetadataLocation(try #require(URL(string: "https://2130706433/prm")), for: mcp))
        }
    }

    @Test("A19: no resource metadata: the origin's RFC 8414 metadata and its endpoints (MCP auth/2025-03-26-oauth-metadata-backcompat)")
    func noResourceMetadataOriginMetadata() async throws {
        let rig = try await Rig(separateResourceServer: false) {
            $0.protectedResourceMetadata = .none
            $0.requireResourceIndicator = false
        }
        try await withRig(rig) { rig in
            let mcp = rig.resource("/mcp")
            let challenge = WWWAuthenticate(headers: try await rig.get(mcp).headers)
            let prepared = try await rig.start(mcp, challenge: challenge).prepare()
            #expect(prepared.configuration.issuer == rig.idp.issuer)
            #expect(prepared.configuration.resource == mcp)
            let client = try rig.client(prepared)
            let grant = try await client.login()
            #expect(try await rig.get(mcp, grant: grant, client: client).status == 200)
            #expect(await rig.idp.provider.requests(to: .discovery).count >= 1, "the origin's metadata was read")
        }
    }

    @Test("A19: no metadata anywhere: /authorize, /token and /register at the origin (MCP auth/2025-03-26-oauth-endpoint-fallback)")
    func noMetadataDefaultEndpoints() async throws {
        let rig = try await Rig(separateResourceServer: false) {
            $0.protectedResourceMetadata = .none
            $0.metadata = .none
            $0.requireResourceIndicator = false
        }
        try await withRig(rig) { rig in
            let mcp = rig.resource("/mcp")
            let prepared = try await rig.start(mcp).prepare()
            #expect(prepared.configuration.endpoints[.authorization]?.absoluteString == rig.idp.issuer + "/authorize")
            #expect(prepared.configuration.endpoints[.token]?.absoluteString == rig.idp.issuer + "/token")
            #expect(await rig.idp.provider.requests(to: .registration).count == 1)
            let client = try rig.client(prepared)
            let grant = try await client.login()
            #expect(try await rig.get(mcp, grant: grant, client: client).status == 200)
        }
    }

    @Test("A19: a resource without metadata whose authorization server the application names: that server, not the origin")
    func noResourceMetadataNamedServer() async throws {
        let rig = try await Rig { $0.protectedResourceMetadata = .none }
        try await withRig(rig) { rig in
            let mcp = rig.resource("/mcp")
            var start = rig.start(mcp)
            start.authorizationServer = rig.idp.issuer
            let prepared = try await start.prepare()
            #expect(prepared.configuration.issuer == rig.idp.issuer)
            #expect(prepared.configuration.endpoints[.authorization] == nil, "the server's own metadata, no default endpoints")
            let client = try rig.client(prepared)
            let grant = try await client.login()
            #expect(try await rig.get(mcp, grant: grant, client: client).status == 200)
        }
    }

    @Test("A19: a server whose metadata does not list PKCE S256 is refused before registering or any browser")
    func serverWithoutPKCE() async throws {
        let rig = try await Rig { $0.codeChallengeMethodsSupported = nil }
        try await withRig(rig) { rig in
            await ResourceFirstScenarios.expectConfiguration(rig.start(rig.resource("/mcp")), mentioning: "S256")
            #expect(await rig.idp.provider.requests(to: .registration).isEmpty)
            #expect(await rig.idp.provider.requests(to: .authorize).isEmpty)
        }
    }
}

/// A resource that moves to another authorization server (A19: registrations and tokens per
/// issuer), against a stand-in of MCP conformance `auth/authorization-server-migration`.
@Suite("ResourceServerMigrationScenarios")
struct ResourceServerMigrationScenarios {
    @Test("A19: a new server in the metadata: its metadata read, a registration there, nothing of the old one sent (MCP auth/authorization-server-migration)")
    func serverMoves() async throws {
        let rig = try await ResourceFirstScenarios.Rig()
        var second = TestProviderConfiguration()
        second.autoLogin = true
        second.metadata = .oauthAuthorizationServer
        second.requireOpenIDScope = false
        second.advertiseDPoP = false
        second.advertisePushedAuthorizationRequests = false
        second.dynamicRegistration = true
        let other = try await TestIdentityServer.start(configuration: second)
        try await withRig(rig) { rig in
            let mcp = rig.resource("/mcp")
            let first = try await rig.start(mcp).prepare()
            let firstGrant = try await rig.client(first).login()
            await rig.idp.provider.configure { $0.protectedResourceAuthorizationServers = [other.issuer] }
            let moved = try await rig.start(mcp).prepare()
            #expect(moved.configuration.issuer == other.issuer)
            #expect(moved.registered != nil, "registered at the new server")
            #expect(moved.configuration.clientID != first.configuration.clientID)
            let grant = try await rig.client(moved).login()
            #expect(grant.accessToken != firstGrant.accessToken)
            let seen = await other.provider.requests()
            #expect(seen.contains { $0.endpoint == .discovery }, "the new server's metadata was read")
            for request in seen {
                let text = request.target + String(decoding: request.body, as: UTF8.self) + "\(request.headers)"
                #expect(!text.contains(first.configuration.clientID), "the old client id never reaches the new server")
                #expect(!text.contains(firstGrant.accessToken), "the old token never reaches the new server")
                if let refresh = firstGrant.refreshToken { #expect(!text.contains(refresh)) }
            }
            #expect(try rig.registrations.registration(for: rig.idp.issuer)?.clientID == first.configuration.clientID, "kept per issuer")
        }
        await other.stop()
    }
}
