import Foundation
import Testing
@testable import Versola
import VersolaHTTP

/// The machine's explicit results, the logout order it returns, and the data it keeps beside
/// the state (the last read's failure, a login completed elsewhere).
@Suite struct SessionMachineOutcomeTests {
    static let first = SessionMachineTests.grant(refreshToken: "refresh-1")
    static let rotated = SessionMachineTests.grant(refreshToken: "refresh-2")

    static func authenticated() -> SessionMachine {
        var machine = SessionMachine()
        machine.handle(.restored(.grant(first, refreshing: false, hasPendingRequest: false)))
        return machine
    }

    @Test("S12 A9 A15: logout wipes first, publishes unauthenticated, revokes the newest token, then the one in memory, then ends the session")
    func logoutOrder() {
        var machine = Self.authenticated()
        let started = machine.handle(.logoutStarted(endSession: true))
        #expect(started.result == .accepted)
        #expect(started.actions == [.publish(.loggingOut), .wipeForLogout(inMemory: Self.first, endSession: true)])
        let finished = machine.handle(.logoutFinished(newest: Self.rotated, inMemory: Self.first, endSession: true))
        #expect(
            finished.actions == [
                .publish(.unauthenticated), .revoke(Self.rotated), .revoke(Self.first),
                .openEndSession(idTokenHint: Self.rotated.idToken),
            ])
        #expect(machine.state == .unauthenticated)
    }

    @Test("S12: one revocation when disk and memory hold the same token; none for a grant without one; the unsaved grant is the one in memory")
    func logoutRevokesEachTokenOnce() {
        var machine = Self.authenticated()
        machine.handle(.logoutStarted(endSession: false))
        #expect(
            machine.handle(.logoutFinished(newest: Self.first, inMemory: Self.first, endSession: false)).actions
                == [.publish(.unauthenticated), .revoke(Self.first)])
        var bare = Self.authenticated()
        bare.handle(.logoutStarted(endSession: true))
        let noToken = SessionMachineTests.grant(refreshToken: nil)
        #expect(
            bare.handle(.logoutFinished(newest: noToken, inMemory: noToken, endSession: true)).actions
                == [.publish(.unauthenticated), .openEndSession(idTokenHint: noToken.idToken)])
        var held = Self.authenticated()
        held.handle(.renewalRefused(SessionMachineHeldBackTests.record("refresh-2"), replacing: "refresh-1"))
        #expect(
            held.handle(.logoutStarted(endSession: false)).actions
                == [.publish(.loggingOut), .stopRetryingHeldBack, .wipeForLogout(inMemory: Self.rotated, endSession: false)])
    }

    @Test("S12: a second logout while one runs wipes and revokes too, without publishing again")
    func concurrentLogout() {
        var machine = Self.authenticated()
        machine.handle(.logoutStarted(endSession: false))
        #expect(
            machine.handle(.logoutStarted(endSession: false))
                == .accepted([.wipeForLogout(inMemory: Self.first, endSession: false)]))
        machine.handle(.logoutFinished(newest: Self.first, inMemory: Self.first, endSession: false))
        #expect(
            machine.handle(.logoutFinished(newest: nil, inMemory: Self.first, endSession: false))
                == .accepted([.revoke(Self.first)]))
    }

    @Test("L2: a live login completed by another process ends well once; a new login forgets it")
    func loginCompletedElsewhere() {
        var machine = SessionMachine()
        #expect(machine.handle(.loginStarted).result == .accepted)
        let seen = machine.handle(.storeChanged(.grant(Self.rotated, refreshing: false, hasPendingRequest: false)))
        #expect(seen.actions == [.publish(.authenticated), .endLiveLogin])
        #expect(machine.loginCompletedElsewhere)
        #expect(machine.handle(.authorizationFailed(.recoverable(.userCancelled))) == .refused(.loginCompletedElsewhere))
        #expect(machine.state == .authenticated)
        #expect(machine.handle(.authorizationFailed(.recoverable(.userCancelled))) == .refused(.notApplicable(.authenticated)))
        // A restored request answered elsewhere ends no login of this process.
        var restored = SessionMachine()
        restored.handle(.restored(.pendingRequest(.browser(SessionMachineTests.pending))))
        #expect(restored.handle(.storeChanged(.grant(Self.rotated, refreshing: false, hasPendingRequest: false))).actions == [.publish(.authenticated)])
        #expect(!restored.loginCompletedElsewhere)
    }

    @Test("E9 S13 P12: the machine keeps why the store could not be read; a lock keeps it, a read clears it, a sign-in clears an undecryptable record's")
    func readProblem() {
        let bus = VersolaError.recoverable(.storageUnavailable("no session bus"))
        let invalid = VersolaError.reauthenticate(.credentialsInvalidated)
        var machine = SessionMachine()
        machine.handle(.restored(.unreadable(bus)))
        #expect(machine.readProblem == bus && machine.state == .unauthenticated && !machine.signInFixesReadProblem)
        machine.handle(.storeChanged(.locked))
        #expect(machine.readProblem == bus)
        machine.handle(.storeChanged(.empty))
        #expect(machine.readProblem == nil)
        var live = Self.authenticated()
        #expect(live.handle(.storeChanged(.unreadable(bus))) == .accepted())
        #expect(live.state == .authenticated && live.readProblem == bus)
        #expect(live.handle(.storeChanged(.unreadable(invalid))).actions == [.publish(.unauthenticated), .wipeCredentials])
        #expect(live.readProblem == invalid && live.signInFixesReadProblem)
        live.handle(.loginStarted)
        live.handle(.authorizationSucceeded(HeldGrant(grant: Self.rotated)))
        #expect(live.readProblem == nil && live.state == .authenticated)
    }

    @Test("S4 S5 A14: a login that cannot start is refused with why, and the error the caller gets says so")
    func refusedLogins() {
        var refreshing = Self.authenticated()
        refreshing.handle(SessionMachineTests.refreshStarted)
        #expect(refreshing.handle(.loginStarted) == .refused(.cannotStartLogin(.refreshing)))
        #expect(
            SessionRefusal.cannotStartLogin(.refreshing).loginError
                == .configuration(.invalidConfiguration("cannot start a login while refreshing")))
        var signedOut = SessionMachine()
        #expect(signedOut.handle(.stepUpStarted) == .refused(.cannotStartLogin(.unauthenticated)))
        #expect(signedOut.handle(.deviceLoginResumed) == .refused(.noDeviceLoginToResume))
        #expect(SessionRefusal.noDeviceLoginToResume.loginError == .recoverable(.pendingRequestExpired))
        #expect(signedOut.state == .unauthenticated)
    }
}
