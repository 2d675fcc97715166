import Foundation
import Testing
import Versola
import VersolaTesting
import VersolaHTTP

@Suite("OAuthErrorTests")
struct OAuthErrorTests {
    private func error(_ code: String, description: String? = nil, status: Int = 400) -> VersolaError {
        OAuthErrorResponse(code: OAuthErrorCode(rawValue: code), errorDescription: description)
            .versolaError(status: status)
    }

    @Test(
        "E6 E9: invalid_grant is grantRejected whatever its description",
        arguments: [nil, "", "Token is not active", "Session not active", "temporarily unavailable, try again",
            "server_error", "interaction_required"])
    func invalidGrantIgnoresDescription(description: String?) {
        #expect(error("invalid_grant", description: description) == .reauthenticate(.grantRejected))
    }

    @Test("E9: access_denied is authorizationDenied")
    func accessDenied() {
        #expect(error("access_denied") == .reauthenticate(.authorizationDenied))
    }

    @Test(
        "E9: interaction codes are interactionRequired",
        arguments: ["login_required", "interaction_required", "consent_required", "account_selection_required"])
    func interactionCodes(code: String) {
        #expect(error(code) == .reauthenticate(.interactionRequired))
    }

    @Test(
        "E4 E6: client registration codes are providerUnsupported",
        arguments: ["invalid_client", "unauthorized_client", "unsupported_grant_type", "invalid_scope",
            "unsupported_response_type"])
    func registrationCodes(code: String) {
        guard case .configuration(.providerUnsupported(let reason, _)) = error(code, description: "secret-free words") else {
            Issue.record("\(code) is not providerUnsupported")
            return
        }
        #expect(reason.contains(code))
        #expect(!reason.contains("secret-free words"), "the description is never part of the error's reason")
    }

    @Test("E4: invalid_request is invalidConfiguration")
    func invalidRequest() {
        guard case .configuration(.invalidConfiguration) = error("invalid_request") else {
            Issue.record("invalid_request is not invalidConfiguration")
            return
        }
    }

    @Test(
        "E6 E8: unknown and DPoP codes on a 4xx are server failures with the status",
        arguments: ["slow_down", "use_dpop_nonce", "invalid_dpop_proof", "server_error", "Invalid_Grant"])
    func unknownCodes(code: String) {
        let mapped = error(code, description: "why", status: 403)
        guard case .recoverable(.server(let failure)) = mapped else {
            Issue.record("\(code) is not a server failure: \(mapped)")
            return
        }
        #expect(failure.status == 403)
        #expect(failure.errorCode == code)
        #expect(failure.errorDescription == "why")
    }

    @Test("E6: the same code maps to the same category at any status")
    func statusDoesNotDecide() {
        for status in [400, 401, 403, 404, 422] {
            #expect(error("invalid_grant", status: status) == .reauthenticate(.grantRejected))
        }
    }

    @Test("RFC 6749 5.2: an error body with extra members is read")
    func extraMembers() throws {
        let body = Array(
            #"{"error":"invalid_grant","error_description":"expired","error_uri":"https://e/x","trace_id":7,"details":{"a":[1]}}"#
                .utf8)
        let parsed = try #require(OAuthErrorResponse(body: body))
        #expect(parsed.code == .invalidGrant)
        #expect(parsed.errorDescription == "expired")
        #expect(parsed.errorURI == "https://e/x")
    }

    @Test(
        "RFC 6749 5.2: a body that is not an OAuth error gives nil, never a throw",
        arguments: ["", "not json", "[]", #"{"error":5}"#, #"{"error":""}"#, #"{"message":"x"}"#, "{\"error\":\"a\"",
            "<html>502</html>"])
    func badBodies(text: String) {
        #expect(OAuthErrorResponse(body: Array(text.utf8)) == nil)
    }

    @Test("A non-string error_description is dropped, the code kept")
    func badDescription() throws {
        let parsed = try #require(OAuthErrorResponse(body: Array(#"{"error":"invalid_grant","error_description":3}"#.utf8)))
        #expect(parsed.code == .invalidGrant)
        #expect(parsed.errorDescription == nil)
    }

    @Test("Every known code reads back to its wire value")
    func codeRoundTrip() {
        for text in [
            "invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type",
            "invalid_scope", "access_denied", "unsupported_response_type", "server_error", "temporarily_unavailable",
            "login_required", "interaction_required", "consent_required", "account_selection_required",
            "use_dpop_nonce", "invalid_dpop_proof", "something_else",
        ] {
            #expect(OAuthErrorCode(rawValue: text).rawValue == text)
        }
        #expect(OAuthErrorCode(rawValue: "something_else") == .other("something_else"))
    }

    @Test("A body-less 4xx is a server failure with its status")
    func bodylessResponse() throws {
        let clock = ManualClock()
        let budget = try OperationBudget(clock: clock)
        let response = HTTPResponse(status: 404, origin: try #require(Origin(scheme: "https", host: "idp.example")))
        guard case .recoverable(.server(let failure)) = OAuthErrorResponse.versolaError(for: response, budget: budget) else {
            Issue.record("not a server failure")
            return
        }
        #expect(failure.status == 404)
    }
}

@Suite("FormBodyTests")
struct FormBodyTests {
    @Test("RFC 3986 unreserved characters stay, everything else is percent-encoded")
    func encoding() {
        var form = FormBody()
        form.append("a", "AZaz09-._~")
        form.append("redirect_uri", "http://127.0.0.1:5173/cb?x=1&y=2")
        form.append("s", "a b+c/é")
        #expect(
            form.encodedString
                == "a=AZaz09-._~&redirect_uri=http%3A%2F%2F127.0.0.1%3A5173%2Fcb%3Fx%3D1%26y%3D2&s=a%20b%2Bc%2F%C3%A9")
    }

    @Test("Decoding reverses encoding, and reads + as a space")
    func roundTrip() throws {
        var form = FormBody()
        form.append("code", "Spl/xl+OBZ=q&")
        form.append("empty", "")
        form.append("ünï", "😀 x")
        let decoded = try #require(FormBody(decoding: form.encoded))
        #expect(decoded == form)
        #expect(FormBody(decoding: Array("a=b+c&d".utf8))?.fields == [.init(name: "a", value: "b c"), .init(name: "d", value: "")])
    }

    @Test("A malformed escape is nil, not a crash", arguments: ["a=%", "a=%4", "a=%zz", "%ff=1"])
    func malformed(text: String) {
        #expect(FormBody(decoding: Array(text.utf8)) == nil)
    }

    @Test("The description lists names, never values")
    func description() {
        var form = FormBody()
        form.append("refresh_token", "rt-secret")
        #expect(!form.description.contains("rt-secret"))
        #expect(form.description.contains("refresh_token"))
    }
}
