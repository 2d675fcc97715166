import Foundation
import Testing
import Versola
import VersolaHTTP

@Suite("UserInfoTests")
struct UserInfoTests {
    private func fetch(_ harness: EngineHarness, subject: String = "user-42") async throws -> Result<UserInfo, VersolaError> {
        let url = try #require(try ProviderFixture.metadata().userInfoEndpoint)
        let endpoint = UserInfoEndpoint(url: url, sender: harness.sender)
        let budget = try harness.budget()
        do throws(VersolaError) {
            return .success(try await endpoint.fetch(accessToken: "at-secret", expectedSubject: subject, budget: budget))
        } catch {
            return .failure(error)
        }
    }

    @Test("A8: claims with the ID token's sub are returned; the token is sent as Bearer")
    func matchingSubject() async throws {
        let harness = EngineHarness()
        harness.transport.script(
            ProviderFixture.userInfoPath, .json(#"{"sub":"user-42","name":"Jane Doe","email":"jane@example.com","groups":["a"]}"#))
        let info = try await fetch(harness).get()
        #expect(info.subject == "user-42")
        #expect(info.name == "Jane Doe")
        #expect(info.email == "jane@example.com")
        #expect(info.claims["groups"]?.array?.count == 1)
        let request = try #require(harness.transport.requests.first)
        #expect(request.method == .get)
        #expect(request.headers["Authorization"] == "Bearer at-secret")
        #expect(!info.description.contains("Jane"))
    }

    @Test("A8: a different sub is idTokenRejected naming it, and the answer is not used")
    func subjectMismatch() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.userInfoPath, .json(#"{"sub":"user-43","name":"Mallory"}"#))
        guard case .failure(.configuration(.idTokenRejected(let rejection))) = try await fetch(harness) else {
            Issue.record("expected idTokenRejected")
            return
        }
        #expect(rejection.kind == .subjectChanged && rejection.detail.contains("userinfo sub"), "\(rejection)")
    }

    @Test("A8: a missing sub is idTokenRejected")
    func subjectMissing() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.userInfoPath, .json(#"{"name":"Jane"}"#))
        guard case .failure(.configuration(.idTokenRejected(let rejection))) = try await fetch(harness) else {
            Issue.record("expected idTokenRejected")
            return
        }
        #expect(rejection.kind == .claimMissing && rejection.detail.contains("userinfo sub"), "\(rejection)")
    }

    @Test("E2: a 401 from UserInfo is sessionRejected (before the session layer refreshes)")
    func unauthorized() async throws {
        let harness = EngineHarness()
        harness.transport.script(
            ProviderFixture.userInfoPath, .status(401, headers: ["WWW-Authenticate": #"Bearer error="invalid_token""#]))
        #expect(try await fetch(harness).failureValue == .reauthenticate(.sessionRejected))
        #expect(harness.transport.requests.count == 1)
    }

    @Test("R5: UserInfo is read again after a 502")
    func repeatedAfter502() async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.userInfoPath, .status(502), .json(#"{"sub":"user-42"}"#))
        _ = try await fetch(harness).get()
        #expect(harness.transport.requests.count == 2)
    }

    @Test("E8: a body that is not a JSON object is a server failure", arguments: ["", "[]", "eyJ.signed.jwt", "{"])
    func notJSON(body: String) async throws {
        let harness = EngineHarness()
        harness.transport.script(ProviderFixture.userInfoPath, .json(body))
        guard case .failure(.recoverable(.server(let failure))) = try await fetch(harness) else {
            Issue.record("expected a server failure")
            return
        }
        #expect(failure.status == 200)
    }
}
