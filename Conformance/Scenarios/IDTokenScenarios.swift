import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

/// The session's credentials for backends, with their real expiry: the ID token
/// (`currentIDToken`, what kube-apiserver's OIDC authenticator validates), renewed by a
/// refresh near its `exp`, and the access token's expiry when the token is opaque.
@Suite(.serialized) struct IDTokenScenarios {
    @Test("The ID token is served from memory while fresh and renewed by a refresh near its expiry")
    func freshThenRenewed() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let first = try await rig.session.currentIDToken()
            #expect(first.value == (await rig.session.idToken()))
            let lifetime = TimeInterval(TestProviderConfiguration().idTokenLifetime)
            #expect(abs(first.expiresAt.timeIntervalSince(rig.clock.wallClockNow) - lifetime) < 2)
            #expect(try await rig.session.currentIDToken() == first)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 0)

            // Within the refresh margin (2 minutes) of its exp: one refresh, a new ID token.
            rig.clock.advance(by: .seconds(Int64(lifetime) - 100))
            let renewed = try await rig.session.currentIDToken()
            #expect(renewed.value != first.value)
            #expect(renewed.expiresAt > first.expiresAt)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 1)
            #expect(try await rig.session.currentIDToken() == renewed)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 1)
            // The refresh renewed the access token too, and the session holds the new ID token.
            #expect(await rig.session.idToken() == renewed.value)
        }
    }

    @Test("A restarted process serves the stored ID token without asking the provider")
    func restoredFromDisk() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let held = try await rig.session.currentIDToken()
            let later = try rig.restarted()
            await later.start()
            #expect(try await later.currentIDToken() == held)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 0)
            // Forced, it refreshes.
            #expect(try await later.currentIDToken(forceRefresh: true).value != held.value)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 1)
        }
    }

    @Test("A provider that sends no new ID token on refresh: the old one serves until its exp, then a plain error")
    func providerKeepsTheOldIDToken() async throws {
        let rig = try await SessionRig(configure: { $0.issueIDTokenOnRefresh = false })
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let first = try await rig.session.currentIDToken()
            rig.clock.advance(by: .seconds(Int64(first.expiresAt.timeIntervalSince(rig.clock.wallClockNow)) - 60))
            // Near its expiry a refresh is tried; the provider keeps the old one, which is still good.
            #expect(try await rig.session.currentIDToken() == first)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 1)
            rig.clock.advance(by: .seconds(61))
            let error = await #expect(throws: VersolaError.self) { try await rig.session.currentIDToken() }
            #expect(error?.category == "configuration" && error?.cause == "providerUnsupported", "\(String(describing: error))")
            #expect(error.map { "\($0)" }?.contains("no new ID token") == true)
            // The session itself is fine: its access token is served.
            #expect(rig.session.state == .authenticated)
            _ = try await rig.session.accessToken()
        }
    }

    @Test("Without a refresh token an expired ID token asks for a sign-in, and the grant is not dropped")
    func noRefreshToken() async throws {
        let rig = try await SessionRig(configure: {
            $0.issueRefreshTokens = false
            $0.accessTokenLifetime = 3600
        })
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let first = try await rig.session.currentIDToken()
            rig.clock.advance(by: .seconds(Int64(first.expiresAt.timeIntervalSince(rig.clock.wallClockNow)) - 60))
            // Inside the margin but not expired: still served, nothing to renew it with.
            #expect(try await rig.session.currentIDToken() == first)
            rig.clock.advance(by: .seconds(61))
            await #expect(throws: VersolaError.reauthenticate(.sessionExpired)) { try await rig.session.currentIDToken() }
            #expect(rig.session.state == .authenticated)
            _ = try await rig.session.accessToken()
        }
    }

    @Test("An opaque access token's expiry is the provider's expires_in, after a login and after a refresh")
    func opaqueAccessTokenExpiry() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let lifetime = TimeInterval(TestProviderConfiguration().accessTokenLifetime)
            let first = try await rig.session.currentAccessToken()
            #expect(!first.value.contains("."), "the test provider's default access tokens are opaque")
            let expiry = try #require(first.expiresAt)
            #expect(abs(expiry.timeIntervalSince(rig.clock.wallClockNow) - lifetime) < 2)
            let restarted = try rig.restarted()
            await restarted.start()
            let refreshed = try await restarted.currentAccessToken()
            #expect(refreshed.value != first.value)
            let renewedExpiry = try #require(refreshed.expiresAt)
            #expect(abs(renewedExpiry.timeIntervalSince(rig.clock.wallClockNow) - lifetime) < 2)
        }
    }
}
