import Foundation
import Testing
import Versola
import VersolaTestIdP

/// S15, the grant that loses a race: a code exchange that completes after another sign-in
/// wrote a newer session never replaces it, and its grant is revoked.
@Suite(.serialized) struct LostRaceScenarios {
    @Test("S15 S11: a code exchange that finishes after another sign-in's session is written is revoked and replaces nothing")
    func lateExchangeLosesToNewerSession() async throws {
        let rig = try await SessionRig(browserFollows: false)
        try await withRig(rig) { rig in
            // A sign-in whose redirect is handed to another process (L2), its exchange slow.
            await rig.session.start()
            let first = rig.session
            let waiting = Task { () async throws -> Void in try await first.login() }
            while rig.browser.opened.isEmpty { await Task.yield() }
            let landing = try await HeadlessUserAgent(transport: StopAtLoopback())
                .complete(authorizationURL: try #require(rig.browser.opened.first))
            let redirect = try #require(landing.visited.last)
            // The late exchange is held at the provider until the winner has written its session.
            await rig.idp.provider.arm(TestFaultRule(.token, .holdUntilReleased))
            let late = try rig.restarted()
            await late.start()
            let exchanges = await rig.tokenRequests(grant: "authorization_code")
            let lateExchange = Task { () async throws -> Void in try await late.deliverRedirect(redirect) }
            let bound = ContinuousClock.now + .seconds(10)
            while await rig.tokenRequests(grant: "authorization_code") == exchanges, ContinuousClock.now < bound {
                try await Task.sleep(for: .milliseconds(5))
            }
            // Meanwhile another sign-in finishes and writes its session.
            let winner = try SessionRig.makeSession(
                configuration: rig.configuration, storage: rig.storage, clock: rig.clock,
                browser: HeadlessBrowser(follows: true, starts: true))
            await winner.start()
            try await winner.login()
            let newer = try #require(try await rig.storage.store.load())
            let revocations = await rig.idp.provider.requests(to: .revocation).count
            await rig.idp.provider.releaseHeld()

            try await lateExchange.value
            _ = try? await waiting.value
            #expect(await rig.tokenRequests(grant: "authorization_code") == exchanges + 2)
            let stored = try #require(try await rig.storage.store.load())
            // Compared, never printed: the tokens stay out of the output.
            let kept = stored.refreshToken == newer.refreshToken && stored.idToken == newer.idToken
            #expect(kept, "the newer session stays")
            #expect(await rig.idp.provider.requests(to: .revocation).count == revocations + 1, "the late grant is revoked")
            #expect(late.state == .authenticated)
        }
    }
}
