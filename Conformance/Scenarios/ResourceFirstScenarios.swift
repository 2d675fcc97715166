import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP
import VersolaTesting

/// Sign-in that starts from a protected resource (A19): RFC 9728 metadata, RFC 8707 resource
/// indicators and RFC 7591 registration, against the test provider's protected resource and
/// authorization server (a separate resource origin, as MCP servers are).
@Suite("ResourceFirstScenarios")
struct ResourceFirstScenarios {
    /// A provider with two protected resources, registration, and `resource` required.
    final class Rig: ScenarioRig {
        let idp: TestIdentityServer
        let home: TemporaryDirectory
        let environment: EngineEnvironment

        init(
            separateResourceServer: Bool = true, configure: @Sendable (inout TestProviderConfiguration) -> Void = { _ in }
        ) async throws {
            var configuration = TestProviderConfiguration()
            configuration.autoLogin = true
            configuration.metadata = .oauthAuthorizationServer
            configuration.requireOpenIDScope = false
            configuration.advertiseDPoP = false
            configuration.advertisePushedAuthorizationRequests = false
            configuration.protectedResourcePaths = ["/mcp", "/tools"]
            configuration.dynamicRegistration = true
            configuration.requireResourceIndicator = true
            configure(&configuration)
            idp = try await TestIdentityServer.start(configuration: configuration, separateResourceServer: separateResourceServer)
            home = try TemporaryDirectory()
            environment = .system()
        }

        /// The identifier of the resource at `path`.
        func resource(_ path: String) -> String {
            String(idp.resourceURL.dropLast("/resource".count)) + path
        }

        var registrations: FileClientRegistrations { FileClientRegistrations(directory: home.path + "/registrations") }

        func start(_ resource: String, challenge: WWWAuthenticate? = nil) -> ResourceAuthorization {
            var start =
                challenge.map { ResourceAuthorization(resource: resource, challenge: $0, environment: environment) }
                ?? ResourceAuthorization(resource: resource, environment: environment)
            start.registrations = registrations
            return start
        }

        func client(_ prepared: ResourceAuthorization.Prepared) throws -> OpenIDClient {
            try OpenIDClient(
                configuration: prepared.configuration, environment: environment,
                browser: HeadlessBrowser(follows: true, starts: true))
        }

        func get(_ resource: String, grant: Grant? = nil, client: OpenIDClient? = nil) async throws -> HTTPResponse {
            let request = HTTPRequest(url: try #require(URL(string: resource)))
            if let grant, let client { return try await client.send(request, grant: grant) }
            return try await CurlTransport().send(request, options: TransportOptions())
        }

        func stop() async { await idp.stop() }
    }

    @Test("A19: from a resource's 401 alone: its metadata, the server's, one registration, a login bound to it, and a refresh that keeps resource (MCP auth/metadata-default, auth/scope-from-www-authenticate)")
    func fromTheChallenge() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            let mcp = rig.resource("/mcp")
            let refused = try await rig.get(mcp)
            #expect(refused.status == 401)
            let challenge = WWWAuthenticate(headers: refused.headers)
            let prepared = try await rig.start(mcp, challenge: challenge).prepare()
            #expect(prepared.registered != nil)
            #expect(prepared.configuration.resource == mcp)
            #expect(prepared.configuration.scopes == ["tools:read", "offline_access"], "the challenge's scope")
            let client = try rig.client(prepared)
            let grant = try await client.login()
            #expect(grant.refreshToken != nil)
            let authorize = try #require(await rig.idp.provider.requests(to: .authorize).first)
            let query = URLComponents(string: authorize.target)?.queryItems ?? []
            #expect(query.first { $0.name == "resource" }?.value == mcp)
            let answer = try await rig.get(mcp, grant: grant, client: client)
            #expect(answer.status == 200)
            let refreshed = try await client.refresh(grant)
            for request in await rig.idp.provider.requests(to: .token) {
                #expect(request.formValue("resource") == mcp, "every token request names the resource")
            }
            #expect(try await rig.get(mcp, grant: refreshed, client: client).status == 200)
            #expect(await rig.idp.provider.requests(to: .registration).count == 1)
        }
    }

    @Test("A19: a second resource behind the same server reuses the registration; each token works only at its own resource")
    func twoResources() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            let first = try await rig.start(rig.resource("/mcp")).prepare()
            let second = try await rig.start(rig.resource("/tools")).prepare()
            #expect(second.registered == nil)
            #expect(first.configuration.clientID == second.configuration.clientID)
            #expect(await rig.idp.provider.requests(to: .registration).count == 1, "registered once per server")
            let mcpClient = try rig.client(first)
            let toolsClient = try rig.client(second)
            let mcpGrant = try await mcpClient.login()
            let toolsGrant = try await toolsClient.login()
            #expect(try await rig.get(rig.resource("/mcp"), grant: mcpGrant, client: mcpClient).status == 200)
            #expect(try await rig.get(rig.resource("/tools"), grant: toolsGrant, client: toolsClient).status == 200)
            #expect(try await rig.get(rig.resource("/tools"), grant: mcpGrant, client: mcpClient).status == 401, "never swapped")
        }
    }

    @Test("A19: the registration names the scopes the login then asks for (servers such as the MCP SDK's allow only those)")
    func registrationNamesTheScopes() async throws {
        let rig = try await Rig { $0.protectedResourceScopes = [] }
        try await withRig(rig) { rig in
            let prepared = try await rig.start(rig.resource("/mcp")).prepare()
            // Only the authorization request matters here (this test provider then issues an ID
            // token it gives no keys for, which the login refuses).
            _ = try? await rig.client(prepared).login()
            let registration = try #require(await rig.idp.provider.requests(to: .registration).first)
            let document = try JSONSerialization.jsonObject(with: Data(registration.body)) as? [String: Any]
            let authorize = try #require(await rig.idp.provider.requests(to: .authorize).first)
            let asked = URLComponents(string: authorize.target)?.queryItems?.first { $0.name == "scope" }?.value
            #expect(asked?.isEmpty == false)
            #expect(document?["scope"] as? String == asked, "registered for exactly what the authorization request asks")
        }
    }

    @Test("A19: a kept registration that does not cover the scopes a login asks for is replaced, and the reason said")
    func registrationScopesCovered() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            var reading = rig.start(rig.resource("/mcp"))
            reading.challengeScopes = ["tools:read"]
            let first = try await reading.prepare()
            #expect(first.registered != nil)
            let again = try await reading.prepare()
            #expect(again.registered == nil, "the same scopes reuse it")
            var writing = rig.start(rig.resource("/mcp"))
            writing.challengeScopes = ["tools:read", "tools:write"]
            let wider = try await writing.prepare()
            #expect(wider.registered?.contains("does not cover") == true, "\(wider.registered ?? "reused")")
            #expect(wider.configuration.clientID != first.configuration.clientID)
            #expect(await rig.idp.provider.requests(to: .registration).count == 2)
        }
    }

    @Test("A19: metadata for another origin is a configuration error naming both; nothing is registered (MCP auth/resource-mismatch)")
    func resourceMismatch() async throws {
        let rig = try await Rig { $0.protectedResourceMetadataNames = "https://elsewhere.example/mcp" }
        try await withRig(rig) { rig in
            await Self.expectConfiguration(rig.start(rig.resource("/mcp")), mentioning: "https://elsewhere.example/mcp")
            await Self.expectConfiguration(rig.start(rig.resource("/mcp")), mentioning: "neither \(rig.resource("/mcp")) nor")
            #expect(await rig.idp.provider.requests(to: .discovery).isEmpty)
            #expect(await rig.idp.provider.requests(to: .registration).isEmpty)
        }
    }

    @Test("A19: an authorization server the resource does not name is refused before it is asked anything")
    func serverNotListed() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            var start = rig.start(rig.resource("/mcp"))
            start.authorizationServer = "https://elsewhere.example"
            await Self.expectConfiguration(start, mentioning: "does not name https://elsewhere.example")
            #expect(await rig.idp.provider.requests(to: .discovery).isEmpty)
        }
    }

    @Test("A19: without a registration endpoint and a client id, the error says to give --client-id; no login starts")
    func noRegistrationEndpoint() async throws {
        let rig = try await Rig(configure: { $0.dynamicRegistration = false })
        try await withRig(rig) { rig in
            await Self.expectConfiguration(rig.start(rig.resource("/mcp")), mentioning: "--client-id")
            #expect(await rig.idp.provider.requests(to: .authorize).isEmpty)
        }
    }

    @Test("A19: a refused registration is a configuration error carrying the server's description")
    func registrationRefused() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            await rig.idp.provider.arm(
                TestFaultRule(
                    .registration,
                    .respond(status: 400, headers: [:], body: #"{"error":"invalid_client_metadata","error_description":"no native clients"}"#)))
            await Self.expectConfiguration(rig.start(rig.resource("/mcp")), mentioning: "no native clients")
            #expect(await rig.idp.provider.requests(to: .authorize).isEmpty)
        }
    }

    @Test("A19: invalid_target from the server is a configuration error naming the resource")
    func invalidTarget() async throws {
        let rig = try await Rig()
        try await withRig(rig) { rig in
            var prepared = try await rig.start(rig.resource("/mcp")).prepare()
            prepared.configuration.resource = rig.resource("/unknown")
            let client = try rig.client(prepared)
            do throws(VersolaError) {
                _ = try await client.login()
                Issue.record("a resource the server does not protect must be refused")
            } catch {
                #expect(error.category == "configuration", "\(error)")
                #expect(error.description.contains("invalid_target"), "\(error)")
            }
            #expect(await rig.idp.provider.requests(to: .token).isEmpty)
        }
    }

    static func expectConfiguration(_ start: ResourceAuthorization, mentioning text: String) async {
        do throws(VersolaError) {
            _ = try await start.prepare()
            Issue.record("prepare succeeded; expected a configuration error mentioning \(text)")
        } catch {
            #expect(error.category == "configuration", "\(error)")
            #expect(error.description.contains(text), "\(error)")
        }
    }
}
