import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

/// Grants without a refresh token (P13): what GitHub OAuth apps, Slack-style apps and many MCP
/// servers hand out. The access token is the session's only credential, so it is sealed in the
/// record and outlives the process that signed in.
@Suite(.serialized) struct AccessTokenOnlyScenarios {
    /// A provider that issues no refresh token, signed in to without `openid` (no ID token
    /// either, as at GitHub): the access token is all there is.
    static func rig(neverExpires: Bool = false) async throws -> SessionRig {
        try await SessionRig(
            configure: {
                $0.issueRefreshTokens = false
                $0.requireOpenIDScope = false
                $0.accessTokensNeverExpire = neverExpires
            }, configureClient: { $0.scopes = ["profile"] })
    }

    @Test("P13 P4 T5: a grant without a refresh token is sealed in the record; a restarted process serves it with no token request")
    func restartedProcessServesTheStoredToken() async throws {
        let rig = try await Self.rig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let token = try await rig.session.accessToken()
            let record = try #require(try await rig.storage.store.load())
            #expect(record.refreshToken == nil && record.idToken == nil)
            // Compared outside #expect, which would print a token it found unequal.
            let kept = record.accessToken?.value == token
            #expect(kept, "P13: the only credential is kept")
            // P5: sealed, never in the clear on disk.
            #expect(try Data(contentsOf: rig.storage.store.recordFile).range(of: Data(token.utf8)) == nil)
            let requests = await rig.idp.provider.requests(to: .token).count
            let restarted = try rig.restarted()
            await restarted.start()
            #expect(restarted.state == .authenticated)
            let served = try await restarted.accessToken() == token
            #expect(served, "the restarted process serves the login's token")
            guard case .endsAt = restarted.grantLifetime else {
                Issue.record("lifetime \(String(describing: restarted.grantLifetime))")
                return
            }
            #expect(try await restarted.send(HTTPRequest(url: URL(string: rig.idp.resourceURL)!)).status == 200)
            #expect(await rig.idp.provider.requests(to: .token).count == requests, "nothing was sent to the token endpoint")
        }
    }

    @Test("P13 S8: once its access token expires the session ends, with no token request and the record wiped")
    func expiryEndsTheSession() async throws {
        let rig = try await Self.rig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let restarted = try rig.restarted()
            await restarted.start()
            #expect(restarted.state == .authenticated)
            rig.clock.advance(by: .seconds(301))
            await #expect(throws: VersolaError.reauthenticate(.sessionExpired)) { _ = try await restarted.accessToken() }
            #expect(restarted.state == .unauthenticated)
            #expect(try await rig.storage.store.load() == nil)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 0)
        }
    }

    @Test("P13: a token with no expiry (GitHub OAuth apps) is served until a resource refuses it, then the session ends")
    func tokenWithoutExpiry() async throws {
        let rig = try await Self.rig(neverExpires: true)
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let token = try await rig.session.accessToken()
            #expect(try await rig.storage.store.load()?.accessToken?.expiresAt == nil)
            rig.clock.advance(by: .seconds(90 * 86_400))
            let restarted = try rig.restarted()
            await restarted.start()
            #expect(restarted.grantLifetime == .unbounded)
            let served = try await restarted.accessToken() == token
            #expect(served, "served after 90 days")
            let resource = HTTPRequest(url: URL(string: rig.idp.resourceURL)!)
            #expect(try await restarted.send(resource).status == 200)
            await rig.idp.provider.arm(TestFaultRule(.resource, .respond(status: 401), times: nil))
            await #expect(throws: VersolaError.self) { _ = try await restarted.send(resource) }
            #expect(restarted.state == .unauthenticated)
            #expect(try await rig.storage.store.load() == nil)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 0)
        }
    }

    @Test("P13 A9 S12: logout revokes the access token of a grant without a refresh token")
    func logoutRevokesTheAccessToken() async throws {
        let rig = try await Self.rig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let token = try await rig.session.accessToken()
            let restarted = try rig.restarted()
            await restarted.start()
            await restarted.logout()
            #expect(restarted.state == .unauthenticated)
            #expect(try await rig.storage.store.load() == nil)
            let revocations = await rig.idp.provider.requests(to: .revocation)
            #expect(revocations.count == 1)
            let revokedIsTheSessions = revocations.first?.formValue("token") == token
            #expect(revokedIsTheSessions)
            #expect(revocations.first?.formValue("token_type_hint") == "access_token")
            // The provider forgot it: the resource refuses it now.
            var request = HTTPRequest(url: URL(string: rig.idp.resourceURL)!)
            request.headers = ["Authorization": "Bearer " + token]
            let answer = try await CurlTransport().send(request, options: TransportOptions())
            #expect(answer.status == 401)
        }
    }
}
