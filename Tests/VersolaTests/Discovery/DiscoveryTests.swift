import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE

@Suite("DiscoveryTests")
struct DiscoveryTests {
    private func fetch(
        _ harness: EngineHarness, configuration: ClientConfiguration? = nil
    ) async throws -> Result<ProviderMetadata, VersolaError> {
        let client = DiscoveryClient(configuration: configuration ?? harness.configuration, sender: harness.sender)
        let budget = try harness.budget()
        do throws(VersolaError) {
            return .success(try await client.metadata(budget: budget))
        } catch {
            return .failure(error)
        }
    }

    private func expectUnsupported(_ result: Result<ProviderMetadata, VersolaError>, mentioning text: String) {
        guard case .failure(.configuration(.providerUnsupported(let reason, _))) = result else {
            Issue.record("expected providerUnsupported, got \(result)")
            return
        }
        #expect(reason.contains(text), "\(reason)")
    }

    @Test("The configuration's transport options go with every request, whatever environment is given")
    func configuredTransportOptionsApplyWithAGivenEnvironment() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.discoveryPath, .json(ProviderFixture.discovery()))
        var configuration = harness.configuration
        configuration.transport.connectTimeout = .seconds(3)
        configuration.transport.totalTimeout = .seconds(7)
        // A CA file must exist to be accepted: Debian's bundle (ca-certificates, which curl needs).
        let bundle = "/etc/ssl/certs/ca-certificates.crt"
        try #require(FileManager.default.isReadableFile(atPath: bundle), "no CA bundle at \(bundle)")
        configuration.transport.caFile = bundle
        configuration.transport.maxResponseBodyBytes = 65_536
        // The environment's own defaults differ from every one of these.
        #expect(harness.environment.http.defaultOptions != configuration.transport)
        let client = try OpenIDClient(configuration: configuration, environment: harness.environment)
        _ = try await client.metadata()
        let sent = try #require(harness.transport.options.first)
        #expect(sent.connectTimeout == .seconds(3))
        #expect(sent.totalTimeout == .seconds(7))
        #expect(sent.caFile == bundle)
        #expect(sent.maxResponseBodyBytes == 65_536)
    }

    @Test("A1: a document whose issuer matches exactly is read, endpoints and all")
    func matchingIssuer() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.discoveryPath, .json(ProviderFixture.discovery()))
        let metadata = try await fetch(harness).get()
        #expect(metadata.issuer == ProviderFixture.issuer)
        #expect(metadata.tokenEndpoint.absoluteString == "https://idp.example/realms/main/token")
        #expect(metadata.jwksURI?.absoluteString == "https://idp.example/realms/main/certs")
        #expect(metadata.userInfoEndpoint?.absoluteString == "https://idp.example/realms/main/userinfo")
        #expect(metadata.revocationEndpoint != nil)
        #expect(metadata.pushedAuthorizationRequestEndpoint != nil)
        #expect(metadata.codeChallengeMethodsSupported == ["plain", "S256"])
        #expect(metadata.dpopSigningAlgorithmsSupported == [.es256, .rs256])
        #expect(metadata.idTokenSigningAlgorithmsSupported == [.rs256, .es256], "HS256 is dropped")
        #expect(metadata.authorizationResponseIssParameterSupported)
        #expect(!metadata.requiresPushedAuthorizationRequests)
        let request = try #require(harness.transport.requests.last)
        #expect(request.method == .get)
        #expect(request.url.absoluteString == "https://idp.example/realms/main/.well-known/openid-configuration")
        #expect(request.headers["User-Agent"] == VersolaVersion.userAgent, "A16: every request names versola")
    }

    @Test(
        "A1: an issuer that differs at all is discoveryIssuerMismatch",
        arguments: [
            "https://idp.example/realms/main/",  // trailing slash
            "https://idp.example/realms/other",  // path
            "https://IDP.example/realms/main",  // letter case
            "http://idp.example/realms/main",  // scheme
            "https://idp.example:8443/realms/main",  // port
        ])
    func issuerMismatch(documentIssuer: String) async throws {
        let harness = EngineHarness()
        harness.transport.script(
            ProviderFixture.discoveryPath, .json(ProviderFixture.discovery(["issuer": .string(documentIssuer)])))
        let result = try await fetch(harness)
        #expect(
            result.failureValue
                == .configuration(.discoveryIssuerMismatch(expected: ProviderFixture.issuer, actual: documentIssuer)))
    }

    @Test("A1: the configured issuer's trailing slash is kept in the comparison")
    func configuredTrailingSlash() async throws {
        let harness = EngineHarness()
        var configuration = harness.configuration
        configuration.issuer = ProviderFixture.issuer + "/"
        harness.transport.script(ProviderFixture.discoveryPath, .json(ProviderFixture.discovery()))
        let result = try await fetch(harness, configuration: configuration)
        #expect(
            result.failureValue
                == .configuration(.discoveryIssuerMismatch(expected: ProviderFixture.issuer + "/", actual: ProviderFixture.issuer)))
        #expect(
            harness.transport.requests.last?.url.absoluteString
                == "https://idp.example/realms/main/.well-known/openid-configuration")
    }

    @Test(
        "A1: a plain http endpoint off loopback is providerUnsupported",
        arguments: ["authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint", "revocation_endpoint",
            "pushed_authorization_request_endpoint", "end_session_endpoint"])
    func httpEndpoint(member: String) async throws {
        let harness = EngineHarness()
        harness.transport.script(
            ProviderFixture.discoveryPath, .json(ProviderFixture.discovery([member: "http://idp.example/realms/main/x"])))
        expectUnsupported(try await fetch(harness), mentioning: member)
    }

    @Test("A1: a plain http issuer off loopback is refused before any request")
    func httpIssuer() async throws {
        let harness = EngineHarness()
        var configuration = harness.configuration
        configuration.issuer = "http://idp.example/realms/main"
        let result = try await fetch(harness, configuration: configuration)
        guard case .failure(.configuration(.invalidConfiguration)) = result else {
            Issue.record("expected invalidConfiguration, got \(result)")
            return
        }
        #expect(harness.transport.requests.isEmpty)
    }

    @Test("A1: plain http on loopback is accepted, issuer and endpoints")
    func loopbackHTTP() async throws {
        let harness = EngineHarness()
        var configuration = harness.configuration
        configuration.issuer = "http://127.0.0.1:8080/realms/main"
        let document = ProviderFixture.discovery([
            "issuer": "http://127.0.0.1:8080/realms/main", "token_endpoint": "http://127.0.0.1:8080/realms/main/token",
            "authorization_endpoint": "http://localhost:8080/realms/main/auth",
            "jwks_uri": "http://[::1]:8080/realms/main/certs",
        ])
        harness.transport.script(ProviderFixture.discoveryPath, .json(document))
        let metadata = try await fetch(harness, configuration: configuration).get()
        #expect(metadata.tokenEndpoint.absoluteString == "http://127.0.0.1:8080/realms/main/token")
    }

    @Test(
        "A1: a document naming the issuer without a required member is providerUnsupported",
        arguments: ["authorization_endpoint", "token_endpoint", "jwks_uri"])
    func missingMember(member: String) async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.discoveryPath, .json(ProviderFixture.discovery([member: nil])))
        expectUnsupported(try await fetch(harness), mentioning: member)
    }

    @Test(
        "A16: a body that is not a metadata document passes to the next location; none found names each URL",
        arguments: ["", "<html>hello</html>", "[]", #"{"issuer":"https://idp.example/realms/main""#,
            #"{"issuer":"https://idp.example/realms/main","issuer":"x"}"#, #"{"token_endpoint":"https://x/t"}"#])
    func malformed(body: String) async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.discoveryPath, .json(body))
        let result = try await fetch(harness)
        guard case .failure(.configuration(.invalidConfiguration(let reason, _))) = result else {
            Issue.record("expected invalidConfiguration, got \(result)")
            return
        }
        #expect(
            reason.contains(
                "https://idp.example/realms/main/.well-known/openid-configuration answered 200 application/json, not a metadata document"),
            "\(reason)")
        #expect(reason.contains("https://idp.example/.well-known/oauth-authorization-server/realms/main answered 404"), "\(reason)")
        #expect(harness.transport.requests.count == 3, "each location once")
    }

    @Test(
        "A1: an optional member of the wrong type is providerUnsupported",
        arguments: [
            ("userinfo_endpoint", JSONValue.integer(3)), ("code_challenge_methods_supported", JSONValue.string("S256")),
            ("require_pushed_authorization_requests", JSONValue.string("true")),
            ("dpop_signing_alg_values_supported", JSONValue.array([.integer(1)])),
            ("token_endpoint", JSONValue.string("not a url")),
        ])
    func wrongType(member: String, value: VersolaJOSE.JSONValue) async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.discoveryPath, .json(ProviderFixture.discovery([member: value])))
        expectUnsupported(try await fetch(harness), mentioning: member)
    }

    @Test("R5: discovery is read again after a 503 and cached after success")
    func retriedAndCached() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.discoveryPath, .status(503), .json(ProviderFixture.discovery()))
        let client = DiscoveryClient(configuration: harness.configuration, sender: harness.sender)
        let budget = try harness.budget()
        _ = try await client.metadata(budget: budget)
        #expect(harness.transport.requests(to: ProviderFixture.discoveryPath).count == 2)
        #expect(harness.clock.sleeps.count == 1, "one backoff wait between the two attempts")
        let sent = harness.transport.requests.count
        _ = try await client.metadata(budget: try harness.budget())
        _ = try await client.metadata(budget: try harness.budget())
        #expect(harness.transport.requests.count == sent, "later calls use the cache")
    }

    @Test("R5: discovery is read again after a transport failure")
    func retriedAfterTimeout() async throws {
        let harness = EngineHarness()
        let origin = try #require(Origin(scheme: "https", host: "idp.example"))
        harness.transport.script(
            ProviderFixture.discoveryPath, .failure(.timedOut(origin: origin, requestBytesWritten: true)),
            .failure(.couldNotResolve(origin: origin)), .json(ProviderFixture.discovery()))
        _ = try await fetch(harness).get()
        #expect(harness.transport.requests(to: ProviderFixture.discoveryPath).count == 3)
    }

    @Test("A1 A16: no metadata at any location (404) is configuration naming the URLs tried and the issuer, never repeated")
    func missingDocumentIsConfiguration() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.discoveryPath, .status(404))
        let client = DiscoveryClient(configuration: harness.configuration, sender: harness.sender)
        let budget = try harness.budget()
        do throws(VersolaError) {
            _ = try await client.metadata(budget: budget)
            Issue.record("a 404 must fail")
        } catch {
            guard case .configuration(.invalidConfiguration(let reason, _)) = error else {
                Issue.record("expected a configuration error, got \(error)")
                return
            }
            #expect(reason.contains("/.well-known/openid-configuration") && reason.contains("--issuer"), "\(reason)")
        }
        #expect(harness.transport.requests.count == 3, "each of the three locations once")
    }

    @Test("R5 A16: a failed discovery is not cached; the next call fetches again")
    func failureNotCached() async throws {
        let harness = EngineHarness()
        // A 501 is never repeated (R4, R5), so the first call fails on it, naming each location.
        harness.transport.script(ProviderFixture.discoveryPath, .status(501), .json(ProviderFixture.discovery()))
        let client = DiscoveryClient(configuration: harness.configuration, sender: harness.sender)
        let budget = try harness.budget()
        do throws(VersolaError) {
            _ = try await client.metadata(budget: budget)
            Issue.record("a 501 must fail")
        } catch {
            guard case .configuration(.invalidConfiguration(let reason, _)) = error else {
                Issue.record("expected a configuration error, got \(error)")
                return
            }
            #expect(reason.contains("openid-configuration answered 501"), "\(reason)")
        }
        #expect(harness.transport.requests(to: ProviderFixture.discoveryPath).count == 1)
        _ = try await client.metadata(budget: try harness.budget())
        #expect(harness.transport.requests(to: ProviderFixture.discoveryPath).count == 2)
        #expect(await client.cachedMetadata != nil)
    }

    @Test("A1: the document URL keeps the issuer's path and drops one trailing slash")
    func documentURL() {
        #expect(
            DiscoveryClient.documentURL(forIssuer: "https://h/tenant")?.absoluteString
                == "https://h/tenant/.well-known/openid-configuration")
        #expect(
            DiscoveryClient.documentURL(forIssuer: "https://h/tenant/")?.absoluteString
                == "https://h/tenant/.well-known/openid-configuration")
        #expect(
            DiscoveryClient.documentURL(forIssuer: "https://h")?.absoluteString == "https://h/.well-known/openid-configuration")
    }

    // MARK: checkSupports

    private func supports(
        _ changes: [String: JSONValue?], configure: (inout ClientConfiguration) -> Void = { _ in }
    ) throws -> VersolaError? {
        var configuration = ProviderFixture.configuration()
        configure(&configuration)
        let metadata = try ProviderFixture.metadata(changes)
        do throws(VersolaError) {
            try metadata.checkSupports(configuration)
            return nil
        } catch {
            return error
        }
    }

    private func expectUnsupported(_ error: VersolaError?, mentioning text: String) {
        guard case .configuration(.providerUnsupported(let reason, _)) = error else {
            Issue.record("expected providerUnsupported, got \(String(describing: error))")
            return
        }
        #expect(reason.contains(text), "\(reason)")
    }

    @Test("A2: code_challenge_methods_supported without S256 is providerUnsupported; absent is fine")
    func pkceSupport() throws {
        #expect(try supports([:]) == nil)
        expectUnsupported(try supports(["code_challenge_methods_supported": ["plain"]]), mentioning: "S256")
        #expect(try supports(["code_challenge_methods_supported": nil]) == nil)
    }

    @Test("D5 A11: in require mode, DPoP without advertised ES256 is providerUnsupported unless Bearer fallback is allowed")
    func dpopSupport() throws {
        let require: (inout ClientConfiguration) -> Void = { $0.dpop = .require }
        expectUnsupported(
            try supports(["dpop_signing_alg_values_supported": nil], configure: require),
            mentioning: "dpop_signing_alg_values_supported")
        expectUnsupported(
            try supports(["dpop_signing_alg_values_supported": ["RS256"]], configure: require), mentioning: "--dpop off")
        #expect(
            try supports(["dpop_signing_alg_values_supported": nil]) {
                $0.dpop = .require
                $0.allowsBearerFallback = true
            } == nil)
        #expect(try supports(["dpop_signing_alg_values_supported": nil]) { $0.dpop = .off } == nil)
    }

    @Test("A11: in auto mode (the default) DPoP is used exactly when ES256 proofs are advertised")
    func dpopAuto() throws {
        let configuration = ProviderFixture.configuration()
        #expect(configuration.dpop == .auto)
        #expect(try supports(["dpop_signing_alg_values_supported": nil]) == nil)
        for (advertised, binds) in [(nil, false), (["RS256"], false), (["ES256"], true), (["RS256", "ES256"], true)]
            as [([String]?, Bool)]
        {
            let metadata = try ProviderFixture.metadata(["dpop_signing_alg_values_supported": advertised.map { .array($0.map { .string($0) }) }])
            #expect(metadata.bindsDPoP(for: configuration) == binds, "\(String(describing: advertised))")
            var off = configuration
            off.dpop = .off
            #expect(!metadata.bindsDPoP(for: off))
        }
    }

    @Test("A13: response_types_supported without code is providerUnsupported; absent is fine")
    func responseTypeSupport() throws {
        expectUnsupported(try supports(["response_types_supported": ["id_token", "token id_token"]]), mentioning: "code flow")
        #expect(try supports(["response_types_supported": ["code", "id_token"]]) == nil)
        #expect(try supports(["response_types_supported": nil]) == nil)
    }

    @Test("A3: PAR required by either side must be possible")
    func parSupport() throws {
        expectUnsupported(
            try supports(["pushed_authorization_request_endpoint": nil]) { $0.pushedAuthorization = .required },
            mentioning: "pushed_authorization_request_endpoint")
        expectUnsupported(
            try supports(["require_pushed_authorization_requests": true]) { $0.pushedAuthorization = .never },
            mentioning: "never")
        expectUnsupported(
            try supports(["require_pushed_authorization_requests": true, "pushed_authorization_request_endpoint": nil]),
            mentioning: "no endpoint")
        #expect(try supports(["require_pushed_authorization_requests": true]) == nil)
        #expect(try supports(["pushed_authorization_request_endpoint": nil]) == nil)
        let metadata = try ProviderFixture.metadata()
        var configuration = ProviderFixture.configuration()
        #expect(metadata.usesPushedAuthorization(for: configuration))
        configuration.pushedAuthorization = .never
        #expect(!metadata.usesPushedAuthorization(for: configuration))
    }

    @Test("A7: no allowed ID token algorithm advertised is providerUnsupported")
    func algorithmSupport() throws {
        expectUnsupported(try supports(["id_token_signing_alg_values_supported": ["HS256", "none"]]), mentioning: "ID token")
        expectUnsupported(
            try supports([:]) { $0.idTokenAlgorithms = [.ps256] }, mentioning: "ID token algorithm")
        #expect(try supports(["id_token_signing_alg_values_supported": nil]) == nil)
    }
}

extension Result {
    /// The error, when this is a failure.
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
