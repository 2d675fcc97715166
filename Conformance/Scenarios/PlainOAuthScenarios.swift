import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

/// Plain OAuth 2.0 servers (A16), installed-app secrets (A17), and extra parameters and
/// endpoints (A18), against the test provider in the shapes of `TestStandIn`.
@Suite("PlainOAuthScenarios")
struct PlainOAuthScenarios {
    static func rig(
        _ standIn: TestStandIn, configure: @escaping @Sendable (inout TestProviderConfiguration) -> Void = { _ in },
        configureClient: (inout ClientConfiguration) -> Void = { _ in }
    ) async throws -> EngineRig {
        try await EngineRig(
            clientID: TestStandIn.clientID, issuerPath: standIn.issuerPath,
            configure: {
                $0 = standIn.configuration
                configure(&$0)
            }, configureClient: configureClient)
    }

    /// GitHub's client: its secret, and the endpoints GitHub publishes no metadata for.
    static func githubClient(_ configuration: inout ClientConfiguration) {
        configuration.clientSecret = ClientSecret(TestStandIn.clientSecret)
        configuration.endpoints[.authorization] = URL(string: configuration.issuer + "/authorize")
        configuration.endpoints[.token] = URL(string: configuration.issuer + "/token")
    }

    static func query(_ request: RecordedRequest) -> [String: String] {
        let items = URLComponents(string: request.target)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: A16

    @Test("A16: RFC 8414 metadata inserted before the issuer's path is found after the OpenID location (the default scopes name openid); no openid sent, no ID token, and refresh works")
    func rfc8414Server() async throws {
        let rig = try await Self.rig(.oauthServer)
        try await withRig(rig) { rig in
            let metadata = try await rig.client.metadata()
            #expect(metadata.source == .oauthAuthorizationServer)
            #expect(metadata.jwksURI == nil)
            let grant = try await rig.client.login()
            let authorize = try #require(await rig.idp.provider.requests(to: .authorize).first)
            let query = Self.query(authorize)
            #expect(query["scope"] == "offline_access", "A12: the default scopes without openid at a server that does not list it")
            #expect(query["nonce"] == nil)
            #expect(grant.idToken == nil && grant.claims == nil)
            #expect(grant.refreshToken != nil)
            let refreshed = try await rig.client.refresh(grant)
            #expect(refreshed.refreshToken != grant.refreshToken, "rotated")
            #expect(await rig.idp.provider.requests(to: .jwks).isEmpty)
            let probes = await rig.idp.provider.requests().filter { $0.target.contains("/.well-known/") }
            #expect(
                probes.map(\.target) == ["/tenant/.well-known/openid-configuration", "/.well-known/oauth-authorization-server/tenant"])
        }
    }

    @Test("A1 A16: RFC 8414 metadata whose issuer differs is discoveryIssuerMismatch, before any browser")
    func rfc8414IssuerMismatch() async throws {
        let rig = try await Self.rig(.oauthServer, configure: { $0.publishedIssuer = "https://elsewhere.example/tenant" })
        try await withRig(rig) { rig in
            await rig.expectFailure(category: "configuration", cause: "discoveryIssuerMismatch")
            #expect(rig.browser.opened.isEmpty)
        }
    }

    @Test("A16: a server without metadata is used through the configured endpoints; without them the error says which flags to give")
    func noMetadata() async throws {
        let rig = try await Self.rig(
            .github,
            configureClient: Self.githubClient)
        try await withRig(rig) { rig in
            let metadata = try await rig.client.metadata()
            #expect(metadata.source == .configuration)
            let grant = try await rig.client.login()
            #expect(grant.idToken == nil)
            #expect(grant.refreshToken != nil)
            _ = try await rig.client.refresh(grant)
        }
        let bare = try await Self.rig(.github)
        try await withRig(bare) { rig in
            do throws(VersolaError) {
                _ = try await rig.client.metadata()
                Issue.record("no metadata and no endpoints must fail")
            } catch {
                #expect(error.cause == "invalidConfiguration")
                #expect(error.description.contains("--endpoint authorization=URL"), "\(error)")
                #expect(error.description.contains("--issuer"), "\(error)")
            }
        }
    }

    @Test("A16: form-encoded token answers are read, an error reported with status 200 is an error, and every request names versola")
    func githubShapes() async throws {
        let rig = try await Self.rig(
            .github,
            configure: { $0.formEncodedUnlessJSONAccepted = true },
            configureClient: Self.githubClient)
        try await withRig(rig) { rig in
            let grant = try await rig.client.login()
            let exchange = try #require(await rig.idp.provider.requests(to: .token).first)
            #expect(exchange.headers["Accept"]?.contains("application/json") == true)
            // Every request of the engine; the browser's own (to the authorization endpoint) aside.
            let engine = await rig.idp.provider.requests().filter { $0.endpoint != .authorize }
            #expect(!engine.isEmpty && engine.allSatisfy { $0.headers["User-Agent"] == VersolaVersion.userAgent })
            await rig.idp.provider.arm(TestFaultRule(.token, .oauthError("invalid_grant")))
            do throws(VersolaError) {
                _ = try await rig.client.refresh(grant)
                Issue.record("an invalid_grant answered with status 200 must fail")
            } catch {
                #expect(error == .reauthenticate(.grantRejected), "\(error)")
            }
        }
    }

    // MARK: A17

    @Test("A17: the secret goes by HTTP Basic by default, in the form where only client_secret_post is listed; PKCE still goes")
    func secretMethods() async throws {
        for (methods, basic) in [(["client_secret_basic", "client_secret_post"], true), (["client_secret_post"], false)] {
            let rig = try await Self.rig(
                .dex, configure: { $0.tokenEndpointAuthMethods = methods },
                configureClient: { $0.clientSecret = ClientSecret(TestStandIn.clientSecret) })
            try await withRig(rig) { rig in
                let grant = try await rig.client.login()
                _ = try await rig.client.refresh(grant)
                await rig.client.revoke(grant)
                #expect(await rig.idp.provider.requests(to: .revocation).count == 1)
                let authorize = try #require(await rig.idp.provider.requests(to: .authorize).first)
                #expect(Self.query(authorize)["code_challenge"] != nil)
                for request in await rig.idp.provider.requests(to: .token) + rig.idp.provider.requests(to: .revocation) {
                    #expect((request.headers["Authorization"]?.hasPrefix("Basic ") == true) == basic, "\(methods)")
                    #expect((request.formValue("client_secret") == TestStandIn.clientSecret) == !basic, "\(methods)")
                }
                #expect(!authorize.target.contains(TestStandIn.clientSecret), "never in the front channel")
            }
        }
    }

    @Test("A17: the secret goes to the PAR and device endpoints too")
    func secretAtParAndDevice() async throws {
        let rig = try await Self.rig(
            .dex, configure: { $0.advertisePushedAuthorizationRequests = true },
            configureClient: { $0.clientSecret = ClientSecret(TestStandIn.clientSecret) })
        try await withRig(rig) { rig in
            _ = try await rig.client.login()
            let push = try #require(await rig.idp.provider.requests(to: .par).first)
            #expect(push.headers["Authorization"]?.hasPrefix("Basic ") == true)
            let device = Task { try await rig.client.loginWithDevice() }
            while await rig.idp.provider.requests(to: .deviceAuthorization).isEmpty { await Task.yield() }
            await rig.client.cancelLogin()
            _ = await device.result
            let request = try #require(await rig.idp.provider.requests(to: .deviceAuthorization).first)
            #expect(request.headers["Authorization"]?.hasPrefix("Basic ") == true)
        }
    }

    @Test("A17: a secret's description never shows it")
    func secretRedacted() {
        var configuration = ClientConfiguration(issuer: "https://idp.example", clientID: "c")
        configuration.clientSecret = ClientSecret("s3cr3t-value")
        #expect(!"\(configuration)".contains("s3cr3t-value"))
        #expect(!String(reflecting: configuration).contains("s3cr3t-value"))
    }

    // MARK: A18

    @Test("A18: extra parameters go in the authorization request, and inside the PAR body when PAR is used")
    func extraParameters() async throws {
        let plain = try await Self.rig(.google, configureClient: {
            $0.clientSecret = ClientSecret(TestStandIn.clientSecret)
            $0.extraAuthorizationParameters = ["access_type": "offline"]
        })
        try await withRig(plain) { rig in
            var parameters = AuthorizationParameters()
            parameters.extra = ["hd": "example.com"]
            let grant = try await rig.client.login(parameters)
            let query = Self.query(try #require(await rig.idp.provider.requests(to: .authorize).first))
            #expect(query["access_type"] == "offline" && query["hd"] == "example.com")
            #expect(grant.refreshToken != nil, "the provider gives one only with access_type=offline")
        }
        let pushed = try await Self.rig(.okta, configureClient: { $0.extraAuthorizationParameters = ["domain_hint": "example.com"] })
        try await withRig(pushed) { rig in
            _ = try await rig.client.login()
            let push = try #require(await rig.idp.provider.requests(to: .par).first)
            #expect(push.formValue("domain_hint") == "example.com")
            let front = Self.query(try #require(await rig.idp.provider.requests(to: .authorize).first))
            #expect(front["domain_hint"] == nil, "only client_id and request_uri go in the front channel")
        }
    }

    @Test("A18: a parameter the engine owns is refused before any request", arguments: ["state", "scope", "client_id", "nonce", "code_challenge_method", "redirect_uri", "dpop_jkt"])
    func ownedParameterRefused(name: String) async throws {
        let rig = try await Self.rig(.okta)
        try await withRig(rig) { rig in
            var parameters = AuthorizationParameters()
            parameters.extra = [name: "x"]
            do throws(VersolaError) {
                _ = try await rig.client.login(parameters)
                Issue.record("\(name) must be refused")
            } catch {
                #expect(error.cause == "invalidConfiguration", "\(error)")
            }
            #expect(rig.browser.opened.isEmpty)
            #expect(await rig.idp.provider.requests(to: .authorize).isEmpty)
        }
        var configuration = ClientConfiguration(issuer: "https://idp.example", clientID: "c")
        configuration.extraAuthorizationParameters = [name: "x"]
        #expect(throws: VersolaError.self) { try configuration.validate() }
    }

    @Test("A18: an endpoint override replaces the metadata's; a clear-text override off loopback is refused before any request")
    func endpointOverrides() async throws {
        let rig = try await Self.rig(.keycloak, configureClient: {
            $0.endpoints[.userInfo] = URL(string: $0.issuer + "/resource")
        })
        try await withRig(rig) { rig in
            let metadata = try await rig.client.metadata()
            #expect(metadata.userInfoEndpoint?.path.hasSuffix("/resource") == true)
        }
        var configuration = ClientConfiguration(issuer: "https://idp.example", clientID: "c")
        configuration.endpoints[.token] = URL(string: "http://idp.example/token")
        #expect(throws: VersolaError.self) { try OpenIDClient(configuration: configuration) }
        configuration.endpoints[.token] = URL(string: "http://127.0.0.1:8080/token")
        _ = try OpenIDClient(configuration: configuration)
    }
}
