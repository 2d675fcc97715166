import Foundation
import Testing
import Versola
import VersolaHTTP

@Suite("ProviderErrorTests")
struct ProviderErrorTests {
    @Test("E14: control and invisible characters are dropped, white space collapsed")
    func cleaning() throws {
        let said = try #require(
            ProviderError(code: "invalid_request\u{1B}[31m", description: "consent\n\tin \u{202E}prompt\u{0007}  \r\n"))
        #expect(said.code == "invalid_request [31m")
        #expect(said.errorDescription == "consent in prompt")
        #expect(ProviderError(code: "\u{1B}\u{0000}", description: "x") == nil, "nothing visible left of the code")
        #expect(ProviderError(code: "x", description: "\u{200B}\n")?.errorDescription == nil)
    }

    @Test("E14: the texts are cut to a bounded length")
    func bounded() throws {
        let long = String(repeating: "é", count: 5000)
        let said = try #require(ProviderError(code: long, description: long))
        #expect(said.code.count == ProviderError.maximumCodeLength)
        #expect(said.errorDescription?.count == ProviderError.maximumDescriptionLength)
        #expect(said.errorDescription?.hasSuffix("…") == true)
    }

    @Test("E14: invalid_request keeps the provider's error and description on the configuration error")
    func invalidRequestKeepsDescription() {
        let error = OAuthErrorResponse(code: .invalidRequest, errorDescription: "consent in prompt").versolaError(status: 400)
        #expect(error.category == "configuration")
        #expect(error.providerError?.code == "invalid_request")
        #expect(error.providerError?.errorDescription == "consent in prompt")
        #expect(error.description.contains("consent in prompt"))
    }

    @Test("E14: a server failure's texts are cleaned too")
    func serverFailureCleaned() {
        let failure = ServerFailure(
            status: 503, failedRequests: 1, elapsed: .zero, errorCode: "temporarily_unavailable",
            errorDescription: "down\u{1B}]0;title\u{07}")
        #expect(failure.errorDescription == "down ]0;title")
        #expect(VersolaError.recoverable(.server(failure)).providerError?.code == "temporarily_unavailable")
    }

    @Test("E14: an authorization-endpoint error keeps its code and description")
    func redirectErrorKept() throws {
        let pending = PendingAuthorization(
            state: "s", nonce: "n", codeVerifier: String(repeating: "v", count: 43), redirectURI: "http://127.0.0.1/cb",
            issuer: "https://id.example", clientID: "c", scope: "openid", createdAt: Date())
        let redirect = try AuthorizationRedirect(
            url: "http://127.0.0.1/cb?state=s&error=invalid_request&error_description=consent%20in%20prompt")
        #expect {
            try redirect.validatedCode(for: pending, issuerParameterRequired: false)
        } throws: { error in
            guard case .configuration(.authorizationRejected(_, let provider)) = error as? VersolaError else { return false }
            return provider?.description == "invalid_request: consent in prompt"
        }
    }
}
