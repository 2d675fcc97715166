import Foundation
import Testing
import VersolaHTTP
import VersolaTestIdP

/// A confidential client (`--confidential-client ID:SECRET`, for peers such as oidc-agent)
/// must present its secret at the token endpoint; public clients are unchanged.
@Suite struct ClientAuthenticationTests {
    static func basic(_ id: String, _ secret: String) -> HTTPHeaders {
        ["Authorization": "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString()]
    }

    @Test func aConfidentialClientNeedsItsSecretByBasicOrForm() async throws {
        try await withProvider(configure: { $0.clients.append(TestClient(id: "peer", secret: "s3cret")) }) { idp in
            let request = AuthorizationRequest(clientID: "peer")
            let code = try await idp.code(for: request)
            let form: [(String, String)] = [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", request.redirectURI),
                ("code_verifier", request.pkce.verifier),
            ]
            #expect(await idp.post("/token", form: form + [("client_id", "peer")]).oauthError == "invalid_client")
            #expect(await idp.post("/token", form: form, headers: Self.basic("peer", "wrong")).oauthError == "invalid_client")
            let issued = try ProviderHarness.tokens(
                from: await idp.post("/token", form: form, headers: Self.basic("peer", "s3cret")))
            let refresh = try #require(issued.refreshToken)
            let byForm = await idp.post(
                "/token",
                form: [
                    ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "peer"),
                    ("client_secret", "s3cret"),
                ])
            #expect(byForm.status == 200)
        }
    }

    @Test func aPublicClientIsKnownByItsIdAlone() async throws {
        try await withProvider { idp in
            let first = try await idp.tokens()
            let refresh = try #require(first.refreshToken)
            #expect(await idp.refresh(refresh).status == 200)
        }
    }
}
