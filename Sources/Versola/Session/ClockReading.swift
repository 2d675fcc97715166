import Foundation

/// Both clocks read at one moment: the monotonic one the local deadline runs on and the wall
/// clock a token's `exp` is read against (T3). Events that mint or check a token carry one, so
/// the machine decides without a clock of its own.
struct ClockReading: Sendable, Hashable {
    var monotonic: Duration
    var wall: Date
}

extension HeldGrant {
    /// `grant` with its access token held from `now` on (T1, T3): its local deadline is what
    /// `expiresAt` leaves of it at `now`. None when the grant carries no access token.
    init(minting grant: Grant, at now: ClockReading) {
        guard !grant.accessToken.isEmpty else {
            self.init(grant: grant)
            return
        }
        let lifetime = grant.expiresAt.map { Duration.seconds($0.timeIntervalSince(now.wall)) }
        self.init(grant: grant, token: HeldAccessToken(value: grant.accessToken, expiresIn: lifetime, mintedAt: now.monotonic))
    }
}
