import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP
import VersolaTesting

/// The scopes of a sign-in that starts from a resource (A19 as the MCP 2026-07-28 revision
/// states it: the challenge's `scope`, else the metadata's `scopes_supported`, else none, and
/// `offline_access` only where the authorization server lists it), each against a stand-in of
/// an MCP conformance scenario's server.
@Suite("ResourceScopeScenarios")
struct ResourceScopeScenarios {
    typealias Rig = ResourceFirstScenarios.Rig

    /// The `scope` of the first authorization request, or nil when it had none.
    static func askedScope(_ rig: Rig) async throws -> String? {
        let authorize = try #require(await rig.idp.provider.requests(to: .authorize).first)
        return URLComponents(string: authorize.target)?.queryItems?.first { $0.name == "scope" }?.value
    }

    @Test("A19: no scope in the 401 nor the metadata: no scope parameter at all (MCP auth/scope-omitted-when-undefined)")
    func scopeOmitted() async throws {
        let rig = try await Rig {
            $0.protectedResourceScopes = []
            $0.challengeNamesScope = false
            $0.advertiseOfflineAccess = false
        }
        try await withRig(rig) { rig in
            let mcp = rig.resource("/mcp")
            let challenge = WWWAuthenticate(headers: try await rig.get(mcp).headers)
            let prepared = try await rig.start(mcp, challenge: challenge).prepare()
            #expect(prepared.configuration.scopes.isEmpty)
            let client = try rig.client(prepared)
            let grant = try await client.login()
            #expect(try await Self.askedScope(rig) == nil, "no scope parameter, not an empty one")
            #expect(try await rig.get(mcp, grant: grant, client: client).status == 200)
        }
    }

    @Test("A19: the metadata's scopes, offline_access added as the server lists it (MCP auth/scope-from-scopes-supported, auth/offline-access-scope)")
    func offlineAccessAdded() async throws {
        let rig = try await Rig {
            $0.protectedResourceScopes = ["tools:read"]
            $0.challengeNamesScope = false
        }
        try await withRig(rig) { rig in
            let prepared = try await rig.start(rig.resource("/mcp")).prepare()
            #expect(prepared.configuration.scopes == ["tools:read", "offline_access"])
            let grant = try await rig.client(prepared).login()
            #expect(try await Self.askedScope(rig) == "tools:read offline_access")
            #expect(grant.refreshToken != nil)
        }
    }

    @Test("A19: offline_access is not asked where the server does not list it (MCP auth/offline-access-not-supported)")
    func offlineAccessNotListed() async throws {
        let rig = try await Rig { $0.advertiseOfflineAccess = false }
        try await withRig(rig) { rig in
            let mcp = rig.resource("/mcp")
            let challenge = WWWAuthenticate(headers: try await rig.get(mcp).headers)
            #expect(challenge.challenge(scheme: "Bearer")?["scope"] == "tools:read offline_access")
            let prepared = try await rig.start(mcp, challenge: challenge).prepare()
            #expect(prepared.configuration.scopes == ["tools:read"])
            _ = try await rig.client(prepared).login()
            #expect(try await Self.askedScope(rig) == "tools:read")
        }
    }
}
