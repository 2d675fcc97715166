import Foundation
import Testing
import VersolaHTTP

@testable import Versola

/// This process's refresh as machine data: its sequence rides in `refreshing`, every step goes
/// through the machine, and a logout or a lock that comes while it is in flight carries it, so
/// that a rotated token that arrives then is still stored first (T2, P7, P10, S9, S10, S12).
@Suite struct SessionMachineRefreshTests {
    typealias Fixture = RefreshSequenceTests

    /// The record with the rotated token and the nonces, as the answer's first write stores it.
    static let rotatedRecord: SessionRecord = {
        var record = Fixture.record
        record.refreshToken = "refresh-2"
        record.dpopNonces = Fixture.nonces
        return record
    }()

    /// A signed-in machine whose own refresh has read the record and sent the refresh token:
    /// the answer is what comes next.
    static func sending() -> SessionMachine {
        var machine = SessionMachineTokenTests.signedIn()
        #expect(machine.handle(SessionMachineTests.refreshStarted).actions == [.publish(.refreshing)])
        #expect(machine.handle(.refresh(.started)).actions == [.refresh(.readRecord)])
        machine.handle(.refresh(.recordRead(stored: Fixture.record, now: Fixture.now)))
        #expect(machine.phase.refreshInFlight?.step == .sending(record: Fixture.record, spending: "refresh-1"))
        return machine
    }

    /// The answer arrives: P7, P10 want the rotated token stored before it is checked.
    static func answer(_ machine: inout SessionMachine) -> SessionOutcome {
        machine.handle(.refresh(.answered(rotatedRefreshToken: "refresh-2", dpopNonces: Fixture.nonces)))
    }

    @Test("T2 P7 P10: the refresh's steps go through the machine, which carries its sequence in refreshing and hands back the result once it is over")
    func stepsThroughTheMachine() {
        var machine = Self.sending()
        #expect(machine.state == .refreshing)
        #expect(Self.answer(&machine).actions == [.refresh(.save(Self.rotatedRecord, replacing: "refresh-1")), .refresh(.check)])
        let done = machine.handle(.refresh(.checked(Fixture.renewed))).actions
        #expect(done == [.refresh(.save(Self.rotatedRecord, replacing: "refresh-1")), .refreshEnded(.success(Fixture.renewed), keptRefreshToken: "refresh-2")])
        // Over: no state carries it; refreshing waits for the result to be applied.
        #expect(machine.phase.refreshInFlight == nil && machine.state == .refreshing)
        #expect(machine.handle(.refresh(.checked(Fixture.renewed))) == .refused(.notApplicable(.refreshing)))
        #expect(machine.handle(.refreshSucceeded(HeldGrant(grant: Fixture.renewed))).actions == [.publish(.authenticated)])
    }

    @Test("T2 P10: the machine hands the record it holds back to the refresh, which spends its token rather than the stored one")
    func heldBackRecordIsSpent() {
        var machine = SessionMachineTokenTests.signedIn()
        let held = SessionMachineHeldBackTests.record("rotated")
        machine.handle(.renewalRefused(held, replacing: "refresh-1"))
        machine.handle(SessionMachineTests.refreshStarted)
        machine.handle(.refresh(.started))
        let actions = machine.handle(.refresh(.recordRead(stored: Fixture.record, now: Fixture.now))).actions
        #expect(actions == [.refresh(.writeNote(Fixture.noted(held, spending: "rotated"))), .refresh(.send(SessionMachineTests.grant(refreshToken: "rotated")))])
    }

    @Test("S9 S12 P7 P10: a logout that starts during the refresh carries it: the rotated token that arrives is stored first, and revoked once the refresh ends")
    func logoutCarriesTheRefresh() {
        var machine = Self.sending()
        let logout = machine.handle(.logoutStarted(endSession: false))
        #expect(logout.actions == [.publish(.loggingOut), .wipeForLogout(inMemory: SessionMachineTests.grant(), endSession: false)])
        #expect(machine.state == .loggingOut)
        #expect(Self.answer(&machine).actions == [.refresh(.save(Self.rotatedRecord, replacing: "refresh-1")), .refresh(.check)])
        let failed = machine.handle(.refresh(.failed(.recoverable(.nonceLoop))))
        #expect(failed.actions == [.refreshEnded(.failure(.recoverable(.nonceLoop)), keptRefreshToken: "refresh-2")])
        #expect(machine.phase.refreshInFlight == nil && machine.state == .loggingOut)
        // S12: a refresh that finishes after the logout began is discarded, its new token revoked.
        let late = HeldGrant(grant: Fixture.renewed)
        #expect(machine.handle(.refreshSucceeded(late)).actions == [.revoke(Fixture.renewed)])
    }

    @Test("S10 S13 P10: a lock during the refresh carries it; unlocking returns to refreshing while it runs, to authenticated once it ended")
    func lockCarriesTheRefresh() {
        var machine = Self.sending()
        #expect(machine.handle(.storageLocked).actions == [.publish(.locked)])
        #expect(Self.answer(&machine).actions == [.refresh(.save(Self.rotatedRecord, replacing: "refresh-1")), .refresh(.check)])
        var unlockedEarly = machine
        #expect(unlockedEarly.handle(.storageUnlocked).actions == [.publish(.refreshing)])
        #expect(unlockedEarly.phase.refreshInFlight == machine.phase.refreshInFlight)
        let done = machine.handle(.refresh(.checked(Fixture.renewed))).actions
        #expect(done.last == .refreshEnded(.success(Fixture.renewed), keptRefreshToken: "refresh-2"))
        // Applied while locked, the end changes nothing (as before); unlocking returns to the grant.
        #expect(!machine.handle(.refreshSucceeded(HeldGrant(grant: Fixture.renewed))).accepted)
        #expect(machine.handle(.storageUnlocked).actions == [.publish(.authenticated)])
        #expect(machine.heldGrant?.grant == SessionMachineTests.grant())
    }

    @Test("T2 P10: during the refresh a store change (its own write) follows the record without ending the refresh; a handed-over renewal does the same")
    func ownWritesLeaveTheRefreshInCharge() {
        var machine = Self.sending()
        let own = StoredSession.grant(SessionMachineTests.grant(refreshToken: "refresh-2"), refreshing: false, hasPendingRequest: false)
        #expect(machine.handle(.storeChanged(own)).actions.isEmpty)
        #expect(machine.state == .refreshing && machine.heldGrant?.grant.refreshToken == "refresh-2")
        #expect(machine.handle(.refreshSucceeded(HeldGrant(grant: SessionMachineTests.grant(refreshToken: "handed")))).actions.isEmpty)
        #expect(machine.state == .refreshing && machine.heldGrant?.grant.refreshToken == "handed")
        #expect(!machine.handle(.refreshFailed(.reauthenticate(.grantRejected), keptRefreshToken: nil)).accepted)
        #expect(Self.answer(&machine).actions.count == 2)
    }

    @Test("S7 S13 T2: a session that ends under the refresh drops it; a refresh cannot start without a grant, while locked, or beside another")
    func droppedOrRefused() {
        var invalidated = Self.sending()
        invalidated.handle(.storeChanged(.unreadable(.reauthenticate(.credentialsInvalidated))))
        #expect(invalidated.state == .unauthenticated)
        #expect(Self.answer(&invalidated) == .refused(.notApplicable(.unauthenticated)))
        var signedOut = SessionMachine()
        #expect(signedOut.handle(SessionMachineTests.refreshStarted) == .refused(.notApplicable(.unauthenticated)))
        var locked = SessionMachineTokenTests.signedIn()
        locked.handle(.storageLocked)
        #expect(locked.handle(SessionMachineTests.refreshStarted) == .refused(.notApplicable(.locked)))
        var twice = Self.sending()
        #expect(twice.handle(SessionMachineTests.refreshStarted) == .refused(.notApplicable(.refreshing)))
        #expect(twice.phase.refreshInFlight?.step == .sending(record: Fixture.record, spending: "refresh-1"))
    }
}
