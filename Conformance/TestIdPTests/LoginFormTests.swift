import Testing
import VersolaTestIdP

/// The sign-in form a browser sees when auto-login is off (E9 access_denied).
@Suite struct LoginFormTests {
    @Test func getShowsAFormThatPostsBackToTheIssuer() async throws {
        try await withProvider { idp in
            let page = await idp.startAuthorization(AuthorizationRequest())
            #expect(page.status == 200)
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(page.location == nil)
            #expect(page.text.contains("<form method=\"post\" action=\"\(idp.issuer)/authorize\">"))
            #expect(page.text.contains("name=\"password\" type=\"password\""))
            #expect(ProviderHarness.ticket(in: page) != nil)
        }
    }

    @Test func wrongPasswordShowsTheFormAgainAndIssuesNothing() async throws {
        try await withProvider { idp in
            let request = AuthorizationRequest()
            let ticket = try #require(ProviderHarness.ticket(in: await idp.startAuthorization(request)))
            for (username, password) in [("alice", "wrong"), ("bob", "wonderland"), ("", "")] {
                let again = await idp.submitLogin(ticket: ticket, username: username, password: password)
                #expect(again.location == nil)
                #expect(again.text.contains("Wrong user name or password."))
                #expect(ProviderHarness.ticket(in: again) == ticket)
            }
            // The ticket survives a mistake; the right password then completes.
            let redirect = await idp.submitLogin(ticket: ticket)
            #expect(redirect.status == 302)
            #expect(redirect.redirectParameters["state"] == request.state)
            #expect(redirect.redirectParameters["code"] != nil)
        }
    }

    @Test func ticketIsSingleUse() async throws {
        try await withProvider { idp in
            let ticket = try #require(ProviderHarness.ticket(in: await idp.startAuthorization(AuthorizationRequest())))
            #expect(await idp.submitLogin(ticket: ticket).status == 302)
            let again = await idp.submitLogin(ticket: ticket)
            #expect(again.status == 400)
            #expect(again.location == nil)
            #expect(await idp.submitLogin(ticket: "forged").status == 400)
        }
    }

    // E9: Cancel is access_denied with state, and needs no password.
    @Test func denyRedirectsAccessDenied() async throws {
        try await withProvider { idp in
            let request = AuthorizationRequest()
            let ticket = try #require(ProviderHarness.ticket(in: await idp.startAuthorization(request)))
            let denied = await idp.submitLogin(ticket: ticket, username: "", password: "", decision: "deny")
            AuthorizationRefusalTests.expectErrorRedirect(denied, "access_denied", request, issuer: idp.issuer)

            let other = try #require(ProviderHarness.ticket(in: await idp.startAuthorization(request)))
            let deniedSignedIn = await idp.submitLogin(ticket: other, decision: "deny")
            AuthorizationRefusalTests.expectErrorRedirect(deniedSignedIn, "access_denied", request, issuer: idp.issuer)
        }
    }
}
