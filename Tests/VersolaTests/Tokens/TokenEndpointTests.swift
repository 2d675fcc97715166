import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE

@Suite("TokenEndpointTests")
struct TokenEndpointTests {
    private static let tokenJSON =
        #"{"access_token":"at-secret","token_type":"DPoP","expires_in":300,"refresh_token":"rt-secret","id_token":"id.token.value","scope":"openid offline_access"}"#

    private func endpoint(_ harness: EngineHarness) throws -> TokenEndpoint {
        TokenEndpoint(metadata: try ProviderFixture.metadata(), configuration: harness.configuration, sender: harness.sender)
    }

    private func exchange(_ harness: EngineHarness, extra: [FormBody.Field] = []) async throws -> Result<TokenResponse, VersolaError> {
        let endpoint = try endpoint(harness)
        let budget = try harness.budget()
        do throws(VersolaError) {
            return .success(
                try await endpoint.exchangeCode(
                    code: "code-secret", verifier: "verifier-secret", redirectURI: ProviderFixture.redirectURI,
                    budget: budget, extra: extra))
        } catch {
            return .failure(error)
        }
    }

    private func refresh(_ harness: EngineHarness, scope: String? = nil) async throws -> Result<TokenResponse, VersolaError> {
        let endpoint = try endpoint(harness)
        let budget = try harness.budget()
        do throws(VersolaError) {
            return .success(try await endpoint.refresh(refreshToken: "rt-secret", scope: scope, budget: budget))
        } catch {
            return .failure(error)
        }
    }

    @Test("A6: the code exchange sends exactly grant_type, code, redirect_uri, code_verifier and client_id")
    func exchangeShape() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.tokenPath, .json(Self.tokenJSON))
        let tokens = try await exchange(harness).get()
        #expect(tokens.accessToken == "at-secret")
        #expect(tokens.tokenType == .dpop)
        #expect(tokens.expiresIn == .seconds(300))
        #expect(tokens.refreshToken == "rt-secret")
        #expect(tokens.idToken == "id.token.value")
        #expect(tokens.scope == "openid offline_access")

        let request = try #require(harness.transport.requests(to: ProviderFixture.tokenPath).first)
        #expect(request.method == .post)
        #expect(request.url.absoluteString == "https://idp.example/realms/main/token")
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(request.headers["Authorization"] == nil)
        let form = try #require(harness.transport.form(of: request))
        #expect(form.names == ["grant_type", "code", "redirect_uri", "code_verifier", "client_id"])
        #expect(form["grant_type"] == "authorization_code")
        #expect(form["code"] == "code-secret")
        #expect(form["redirect_uri"] == ProviderFixture.redirectURI)
        #expect(form["code_verifier"] == "verifier-secret")
        #expect(form["client_id"] == ProviderFixture.clientID)
        #expect(
            String(decoding: request.body, as: UTF8.self).contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A49152%2Fcallback"))
    }

    @Test("A6: extra fields follow the standard ones")
    func extraFields() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.tokenPath, .json(Self.tokenJSON))
        _ = try await exchange(harness, extra: [.init(name: "resource", value: "https://api.example/")]).get()
        let request = try #require(harness.transport.requests.first)
        #expect(harness.transport.form(of: request)?.names.last == "resource")
    }

    @Test("R4 A6: the code exchange is sent once after a 503")
    func exchangeNotRepeatedAfter503() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.tokenPath, .status(503), .json(Self.tokenJSON))
        let result = try await exchange(harness)
        guard case .failure(.recoverable(.server(let failure))) = result else {
            Issue.record("expected a server failure, got \(result)")
            return
        }
        #expect(failure.status == 503)
        #expect(harness.transport.requests.count == 1)
    }

    @Test("R4 A6: the code exchange is sent once after a dropped answer")
    func exchangeNotRepeatedAfterDrop() async throws {
        let harness = EngineHarness()
        let origin = try #require(Origin(scheme: "https", host: "idp.example"))
        harness.transport.script(
            ProviderFixture.tokenPath, .failure(.failedAfterSending(origin: origin)), .json(Self.tokenJSON))
        let result = try await exchange(harness)
        guard case .failure(.recoverable(.network(let failure))) = result else {
            Issue.record("expected a network failure, got \(result)")
            return
        }
        #expect(failure.kind == .failedAfterSending)
        #expect(harness.transport.requests.count == 1)
        #expect(harness.clock.sleeps.isEmpty)
    }

    @Test("R4: the code exchange is not repeated even after a refused connection")
    func exchangeNotRepeatedAfterRefusal() async throws {
        let harness = EngineHarness()
        let origin = try #require(Origin(scheme: "https", host: "idp.example"))
        harness.transport.script(ProviderFixture.tokenPath, .failure(.couldNotConnect(origin: origin)), .json(Self.tokenJSON))
        _ = try await exchange(harness)
        #expect(harness.transport.requests.count == 1)
    }

    @Test("A6: the refresh sends grant_type, refresh_token, client_id and an optional scope")
    func refreshShape() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.tokenPath, .json(Self.tokenJSON))
        _ = try await refresh(harness).get()
        _ = try await refresh(harness, scope: "openid").get()
        let requests = harness.transport.requests(to: ProviderFixture.tokenPath)
        let first = try #require(harness.transport.form(of: requests[0]))
        #expect(first.names == ["grant_type", "refresh_token", "client_id"])
        #expect(first["grant_type"] == "refresh_token")
        #expect(first["refresh_token"] == "rt-secret")
        let second = try #require(harness.transport.form(of: requests[1]))
        #expect(second["scope"] == "openid")
    }

    @Test("R6: the refresh is repeated after a 503 but not after a 500")
    func refreshRepeats() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.tokenPath, .status(503), .json(Self.tokenJSON))
        _ = try await refresh(harness).get()
        #expect(harness.transport.requests.count == 2)

        let other = EngineHarness()
        other.transport.script(ProviderFixture.tokenPath, .status(500), .json(Self.tokenJSON))
        #expect(try await refresh(other).failureValue != nil)
        #expect(other.transport.requests.count == 1)
    }

    @Test(
        "E9 E6 R4: invalid_grant is grantRejected whatever the description, and never repeated",
        arguments: [#"{"error":"invalid_grant"}"#, #"{"error":"invalid_grant","error_description":"Token is not active"}"#,
            #"{"error":"invalid_grant","error_description":"temporarily_unavailable: retry later"}"#,
            #"{"error_description":"interaction_required","error":"invalid_grant","extra":{"x":1}}"#])
    func invalidGrant(body: String) async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.tokenPath, .json(body, status: 400))
        #expect(try await refresh(harness).failureValue == .reauthenticate(.grantRejected))
        #expect(try await exchange(harness).failureValue == .reauthenticate(.grantRejected))
        #expect(harness.transport.requests.count == 2)
    }

    @Test(
        "E9: a refresh refused with invalid_request naming the refresh token is grantRejected; the code exchange is not",
        arguments: [#"{"error":"invalid_request","error_description":"Refresh token inactive"}"#,
            #"{"error":"invalid_request","error_description":"the REFRESH TOKEN was revoked"}"#])
    func invalidRequestNamingTheRefreshToken(body: String) async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.tokenPath, .json(body, status: 400))
        #expect(try await refresh(harness).failureValue == .reauthenticate(.grantRejected))
        guard case .configuration(.invalidConfiguration) = try await exchange(harness).failureValue else {
            Issue.record("an invalid_request to the code exchange stays a configuration error")
            return
        }
        #expect(harness.transport.requests.count == 2, "neither is repeated")
    }

    @Test(
        "E9: a refresh refused with any other invalid_request stays a configuration error",
        arguments: [#"{"error":"invalid_request"}"#, #"{"error":"invalid_request","error_description":"Expected DPoP header, none found"}"#,
            #"{"error":"invalid_request","error_description":"Code inactive"}"#])
    func otherInvalidRequest(body: String) async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.tokenPath, .json(body, status: 400))
        guard case .configuration(.invalidConfiguration) = try await refresh(harness).failureValue else {
            Issue.record("expected a configuration error for \(body)")
            return
        }
    }

    @Test("E9: a 403 with an OAuth error body is read like a 400")
    func forbiddenReadLikeBadRequest() async throws {
        let harness = EngineHarness()
        harness.transport.script(
            ProviderFixture.tokenPath, .json(#"{"error":"invalid_grant"}"#, status: 403),
            .json(#"{"error":"invalid_client"}"#, status: 403))
        #expect(try await refresh(harness).failureValue == .reauthenticate(.grantRejected))
        guard case .configuration(.providerUnsupported) = try await refresh(harness).failureValue else {
            Issue.record("a 403 invalid_client is providerUnsupported")
            return
        }
    }

    @Test("E8: a 4xx without an OAuth error body is a server failure with its status")
    func bodylessClientError() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.tokenPath, .response(status: 404, headers: [:], body: Array("nope".utf8)))
        guard case .recoverable(.server(let failure)) = try await refresh(harness).failureValue else {
            Issue.record("expected a server failure")
            return
        }
        #expect(failure.status == 404)
    }

    @Test(
        "E8: a 200 whose body is unusable is a server failure with status 200",
        arguments: ["", "<html></html>", "[]", #"{"token_type":"Bearer"}"#, #"{"access_token":"a"}"#,
            #"{"access_token":5,"token_type":"Bearer"}"#, #"{"access_token":"a","token_type":"Bearer","expires_in":-1}"#,
            #"{"access_token":"a","token_type":"Bearer","expires_in":"soon"}"#,
            #"{"access_token":"a","token_type":"Bearer","expires_in":1e300}"#,
            #"{"access_token":"a","token_type":"Bearer","refresh_token":7}"#])
    func unusableBody(body: String) async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.tokenPath, .json(body))
        guard case .recoverable(.server(let failure)) = try await refresh(harness).failureValue else {
            Issue.record("expected a server failure for \(body)")
            return
        }
        #expect(failure.status == 200)
    }

    @Test("A token_type other than Bearer or DPoP is providerUnsupported")
    func unknownTokenType() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.tokenPath, .json(#"{"access_token":"a","token_type":"mac"}"#))
        guard case .configuration(.providerUnsupported) = try await refresh(harness).failureValue else {
            Issue.record("expected providerUnsupported")
            return
        }
    }

    @Test("RFC 6749 5.1: token_type is case-insensitive and expires_in may be a numeric string")
    func lenientMembers() async throws {
        let harness = EngineHarness()
        harness.transport.script(
            ProviderFixture.tokenPath,
            .json(#"{"access_token":"a","token_type":"bearer","expires_in":"3600","id_token":null,"scope":"openid"}"#),
            .json(#"{"access_token":"a","token_type":"dPoP","expires_in":59.9}"#))
        let first = try await refresh(harness).get()
        #expect(first.tokenType == .bearer)
        #expect(first.expiresIn == .seconds(3600))
        #expect(first.idToken == nil)
        let second = try await refresh(harness).get()
        #expect(second.tokenType == .dpop)
        #expect(second.expiresIn == .seconds(59))
    }

    @Test("No token, code or verifier appears in descriptions or logs")
    func noSecretsShown() async throws {
        let harness = EngineHarness()
        harness.transport.script(
            ProviderFixture.tokenPath, .json(Self.tokenJSON), .json(#"{"error":"invalid_grant"}"#, status: 400))
        let tokens = try await exchange(harness).get()
        _ = try await refresh(harness)
        let shown = [tokens.description, String(describing: tokens)] + harness.log.recorded.map(\.description)
        for text in shown {
            for secret in ["at-secret", "rt-secret", "id.token.value", "code-secret", "verifier-secret"] {
                #expect(!text.contains(secret), "\(text)")
            }
        }
    }
}
