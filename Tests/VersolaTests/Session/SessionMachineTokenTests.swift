import Foundation
import Testing
import VersolaJOSE
import VersolaHTTP

@testable import Versola

/// The access token's data in the machine: the clock verdict (T3) and a token handed over by
/// another process's login, decided by the machine from the clock readings its events carry.
@Suite struct SessionMachineTokenTests {
    static let now = Date(timeIntervalSince1970: 1_900_000_000)

    /// A JWT-shaped token whose `exp` is `exp`.
    static func token(exp: Date) -> String {
        let payload = #"{"exp":\#(Int(exp.timeIntervalSince1970))}"#
        return "eyJhbGciOiJub25lIn0." + Base64URL.encode(Array(payload.utf8)) + ".c2ln"
    }

    static func signedIn() -> SessionMachine {
        var machine = SessionMachine(refreshMargin: .seconds(120))
        machine.handle(.restored(.grant(SessionMachineTests.grant(), refreshing: false, hasPendingRequest: false)))
        return machine
    }

    @Test("T3: a brand-new token that its exp already calls expired makes the machine trust the local deadline from then on")
    func fastClockVerdict() {
        var machine = Self.signedIn()
        // The wall clock runs an hour ahead: exp (now + 10 min) reads as passed.
        let fast = ClockReading(monotonic: .seconds(10), wall: Self.now.addingTimeInterval(3600))
        let value = Self.token(exp: Self.now.addingTimeInterval(600))
        let fresh = HeldAccessToken(value: value, expiresIn: .seconds(600), mintedAt: .seconds(10))
        #expect(machine.verdict(for: fresh, at: fast, renewable: true) == .deadlinesDisagree)
        machine.handle(.accessTokenHeld(fresh, expiresAt: nil))
        #expect(!machine.freshness.clockIsFast, "a token held without a check says nothing of the clock")
        #expect(machine.handle(.accessTokenHeld(fresh, expiresAt: nil, minted: fast)).accepted)
        #expect(machine.freshness.clockIsFast)
        #expect(machine.verdict(for: fresh, at: fast, renewable: true) == .serve)
        #expect(machine.verdict(for: fresh, at: ClockReading(monotonic: .seconds(500), wall: fast.wall), renewable: true) == .expired)
    }

    @Test("S11 T3: a token another process's login hands over is taken only for the grant held, and checked as brand-new")
    func offeredToken() {
        var machine = Self.signedIn()
        let now = ClockReading(monotonic: .seconds(5), wall: Self.now)
        let value = Self.token(exp: Self.now.addingTimeInterval(900))
        let expiresAt = Self.now.addingTimeInterval(900)
        #expect(!machine.handle(.accessTokenOffered(value, expiresAt: expiresAt, idToken: "another grant's", at: now)).accepted)
        #expect(machine.heldGrant?.token == nil)
        #expect(!machine.handle(.accessTokenOffered("", expiresAt: expiresAt, idToken: SessionMachineTests.idToken, at: now)).accepted)
        #expect(machine.handle(.accessTokenOffered(value, expiresAt: expiresAt, idToken: SessionMachineTests.idToken, at: now)).accepted)
        #expect(machine.heldGrant?.token?.value == value)
        #expect(machine.heldGrant?.token?.localDeadline == .seconds(905))
        #expect(machine.verdict(for: machine.heldGrant!.token!, at: now, renewable: true) == .serve)
        var signedOut = SessionMachine()
        #expect(!signedOut.handle(.accessTokenOffered(value, expiresAt: nil, idToken: nil, at: now)).accepted)
    }
}

extension SessionMachineTokenTests {
    /// A machine holding a grant without a refresh token, whose access token is `accessToken`.
    static func withoutRefreshToken(accessToken: String, in state: SessionState) -> SessionMachine {
        var grant = SessionMachineTests.grant(refreshToken: nil)
        grant.accessToken = accessToken
        var machine = SessionMachine()
        machine.handle(.restored(.grant(grant, refreshing: false, hasPendingRequest: false)))
        if state == .refreshing { machine.handle(SessionMachineTests.refreshStarted) }
        if state == .stepUpRequired { machine.handle(.stepUpDemanded(StepUpChallenge())) }
        return machine
    }

    @Test(
        "S8: an expired grant without a refresh token ends, wiped, in every state serving it; one with a refresh token, or whose access token was never held here, does not",
        arguments: [SessionState.authenticated, .refreshing, .stepUpRequired])
    func expiredWithoutRefreshToken(state: SessionState) {
        var machine = Self.withoutRefreshToken(accessToken: "at-1", in: state)
        #expect(machine.state == state)
        let outcome = machine.handle(.grantExpiredWithoutRefreshToken)
        #expect(outcome.accepted)
        #expect(machine.state == .unauthenticated)
        #expect(outcome.actions == [.publish(.unauthenticated), .wipeCredentials])
        var neverHeld = Self.withoutRefreshToken(accessToken: "", in: state)
        #expect(neverHeld.handle(.grantExpiredWithoutRefreshToken) == .refused(.notApplicable(state)))
        #expect(neverHeld.state == state)
        var renewable = Self.signedIn()
        #expect(!renewable.handle(.grantExpiredWithoutRefreshToken).accepted)
        #expect(renewable.state == .authenticated)
    }
}
