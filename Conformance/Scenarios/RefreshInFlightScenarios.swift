import Foundation
import Testing
import Versola
import VersolaTestIdP

/// S12 with this session's own refresh in flight: the logout that begins meanwhile carries the
/// refresh, whose rotated refresh token is stored first (P7, P10); the logout's wipe, which
/// waits for the profile lock the refresh holds, then reads it and revokes it.
@Suite(.serialized) struct RefreshInFlightScenarios {
    @Test("S12 P7 P10: a logout that begins while the session's refresh waits for its answer stores the rotated token first, then wipes and revokes it")
    func logoutDuringRefresh() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let first = try #require(try await rig.storage.store.load()?.refreshToken)
            await rig.idp.provider.arm(TestFaultRule(.token, .holdUntilReleased))
            let refreshes = await rig.tokenRequests(grant: "refresh_token")
            let session = rig.session
            let refresh = Task { try? await session.accessToken(forceRefresh: true) }
            let bound = ContinuousClock.now + .seconds(10)
            while await rig.tokenRequests(grant: "refresh_token") == refreshes, ContinuousClock.now < bound {
                try await Task.sleep(for: .milliseconds(5))
            }
            // The refresh token is spent and its answer held: now the logout begins.
            let logout = Task { await session.logout() }
            while session.state != .loggingOut, ContinuousClock.now < bound { try await Task.sleep(for: .milliseconds(5)) }
            await rig.idp.provider.releaseHeld()
            _ = await refresh.value
            _ = await logout.value

            #expect(session.state == .unauthenticated)
            #expect(try await rig.storage.store.load() == nil)
            // Compared, never printed: the tokens stay out of the output.
            let revoked = Set(await rig.idp.provider.requests(to: .revocation).compactMap { $0.formValue("token") })
            #expect(revoked.contains(first), "the token in memory is revoked")
            #expect(revoked.count == 2, "the rotated refresh token, stored before the wipe read the record, is revoked too")
        }
    }
}
