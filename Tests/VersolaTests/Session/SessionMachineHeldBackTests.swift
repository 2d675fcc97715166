import Foundation
import Testing
import VersolaHTTP

@testable import Versola

/// P10 in the machine: a renewed record the store refused is machine data, with the actions
/// that retry it and the verdict on where it may be written.
@Suite struct SessionMachineHeldBackTests {
    static func record(_ refreshToken: String) -> SessionRecord {
        SessionRecord(issuer: "https://id.example", clientID: "cli", refreshToken: refreshToken, idToken: SessionMachineTests.idToken)
    }

    static func holding() -> SessionMachine {
        var machine = SessionMachineTokenTests.signedIn()
        let outcome = machine.handle(.renewalRefused(record("rotated"), replacing: "refresh-1"))
        #expect(outcome.actions == [.retryHeldBack])
        return machine
    }

    @Test("P10: a refused record is held with what it replaces; a second refusal keeps the first replaced token and starts no second retry")
    func heldWithWhatItReplaces() {
        var machine = Self.holding()
        #expect(machine.heldBack == HeldBackRecord(record: Self.record("rotated"), replacing: "refresh-1"))
        #expect(machine.handle(.renewalRefused(Self.record("rotated-again"), replacing: "rotated")).actions.isEmpty)
        #expect(machine.heldBack == HeldBackRecord(record: Self.record("rotated-again"), replacing: "refresh-1"))
        #expect(machine.handle(.heldBackWritten).actions == [.stopRetryingHeldBack])
        #expect(machine.heldBack == nil)
        #expect(!machine.handle(.heldBackWritten).accepted)
    }

    @Test("P10 S11: written only over the session it replaces (or itself); over any other it is superseded, and its grant revoked")
    func writtenOnlyOverWhatItReplaces() {
        var machine = Self.holding()
        #expect(machine.heldBackFate(stored: "refresh-1") == .write(Self.record("rotated")))
        #expect(machine.heldBackFate(stored: "rotated") == .write(Self.record("rotated")))
        #expect(machine.heldBackFate(stored: "someone-else's") == .superseded)
        #expect(machine.heldBackFate(stored: nil) == .superseded)
        let grant = SessionMachineTests.grant(refreshToken: "rotated")
        #expect(machine.handle(.heldBackSuperseded).actions == [.stopRetryingHeldBack, .revoke(grant)])
        #expect(machine.heldBackFate(stored: "refresh-1") == .none)
    }

    @Test("P10: the older record on disk, or none, does not replace the held one; another session does")
    func olderRecordDoesNotReplaceIt() {
        var machine = Self.holding()
        machine.handle(.refreshSucceeded(HeldGrant(grant: SessionMachineTests.grant(refreshToken: "rotated"))))
        let old = StoredSession.grant(SessionMachineTests.grant(), refreshing: true, hasPendingRequest: false)
        #expect(machine.handle(.storeChanged(old)).actions.isEmpty)
        #expect(machine.handle(.storeChanged(.empty)).actions.isEmpty)
        #expect(machine.state == .authenticated && machine.heldGrant?.grant.refreshToken == "rotated")
        let other = StoredSession.grant(SessionMachineTests.grant(refreshToken: "elsewhere"), refreshing: false, hasPendingRequest: false)
        machine.handle(.storeChanged(other))
        #expect(machine.heldGrant?.grant.refreshToken == "elsewhere")
    }

    @Test("P10 S7 S9: a wipe or a logout drops the held record with everything else")
    func droppedByWipeAndLogout() {
        var refused = Self.holding()
        #expect(refused.handle(.refreshFailed(.reauthenticate(.grantRejected), keptRefreshToken: nil)).actions.contains(.wipeCredentials))
        #expect(refused.heldBack == nil)
        var loggingOut = Self.holding()
        let actions = loggingOut.handle(.logoutStarted(endSession: false)).actions
        #expect(actions.contains(.stopRetryingHeldBack))
        #expect(loggingOut.heldBack == nil)
        // P10: the machine itself names the held record's grant as the one in memory to revoke.
        #expect(actions.contains(.wipeForLogout(inMemory: SessionMachineTests.grant(refreshToken: "rotated"), endSession: false)))
        var signingIn = Self.holding()
        signingIn.handle(.loginStarted)
        signingIn.handle(.authorizationSucceeded(HeldGrant(grant: SessionMachineTests.grant(refreshToken: "new"))))
        #expect(signingIn.heldBack == nil)
    }
}
