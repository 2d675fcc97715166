import Testing
@testable import Versola

@Suite struct SessionMachineTests {
    /// One sample of every event.
    static let events: [(String, SessionEvent)] = [
        ("restored.empty", .restored(.empty)),
        ("restored.grant", .restored(.grant(hasPendingRequest: false))),
        ("restored.grant+pending", .restored(.grant(hasPendingRequest: true))),
        ("restored.pending", .restored(.pendingRequest)),
        ("restored.expiredPending", .restored(.expiredPendingRequest)),
        ("restored.locked", .restored(.locked)),
        ("loginStarted", .loginStarted),
        ("stepUpStarted", .stepUpStarted),
        ("authorizationSucceeded", .authorizationSucceeded),
        ("authorizationFailed.user", .authorizationFailed(.recoverable(.userCancelled))),
        ("authorizationFailed.system", .authorizationFailed(.recoverable(.systemCancelled))),
        ("authorizationFailed.denied", .authorizationFailed(.reauthenticate(.authorizationDenied))),
        ("pendingExpired", .pendingExpired),
        ("stepUpDemanded", .stepUpDemanded(StepUpChallenge(acrValues: ["mfa"], maxAge: 0))),
        ("refreshStarted", .refreshStarted),
        ("refreshSucceeded", .refreshSucceeded),
        ("refreshFailed.invalidGrant", .refreshFailed(.reauthenticate(.grantRejected))),
        ("refreshFailed.network", .refreshFailed(.recoverable(.network(NetworkFailure(kind: .couldNotConnect, requestBytesWritten: false, origin: "x"))))),
        ("refreshFailed.server", .refreshFailed(.recoverable(.server(ServerFailure(status: 503, failedRequests: 1, elapsed: .zero))))),
        ("refreshFailed.configuration", .refreshFailed(.configuration(.idTokenRejected("x")))),
        ("grantExpiredWithoutRefreshToken", .grantExpiredWithoutRefreshToken),
        ("logoutStarted", .logoutStarted),
        ("logoutFinished", .logoutFinished),
        ("storageLocked", .storageLocked),
        ("storageUnlocked", .storageUnlocked),
        ("credentialsInvalidated", .credentialsInvalidated),
    ]

    /// The SPEC, written out per (state, event): the next state and the actions besides
    /// publishing. Pairs not listed change nothing. Written independently of the machine.
    static func expected(_ state: SessionState, _ event: String) -> (SessionState, Set<SessionAction>)? {
        switch (state, event) {
        // Startup restores from any state (S3, P2, P3, S10).
        case (_, "restored.empty"): return (.unauthenticated, [])
        case (_, "restored.grant"): return (.authenticated, [])
        case (_, "restored.grant+pending"): return (.authenticated, [.discardPendingRequest])  // P3
        case (_, "restored.pending"): return (.authorizing, [])  // P2
        case (_, "restored.expiredPending"): return (.unauthenticated, [.discardPendingRequest])  // P2
        case (_, "restored.locked"): return (.locked, [])  // S10
        // S4
        case (.unauthenticated, "loginStarted"), (.authenticated, "loginStarted"): return (.authorizing, [])
        // S5
        case (.stepUpRequired, "stepUpStarted"), (.authenticated, "stepUpStarted"): return (.authorizing, [])
        case (.authorizing, "authorizationSucceeded"): return (.authenticated, [.discardPendingRequest])
        case (.authorizing, "authorizationFailed.user"), (.authorizing, "authorizationFailed.denied"),
            (.authorizing, "pendingExpired"):
            return (.unauthenticated, [.discardPendingRequest])  // E7; the machine starts from unauthenticated here
        case (.authorizing, "authorizationFailed.system"): return (.unauthenticated, [.keepPendingRequest])  // E7
        case (.authenticated, "stepUpDemanded"): return (.stepUpRequired, [])  // S5
        // S6
        case (.authenticated, "refreshStarted"), (.stepUpRequired, "refreshStarted"): return (.refreshing, [])
        case (.refreshing, "refreshSucceeded"): return (.authenticated, [])
        case (.refreshing, "refreshFailed.invalidGrant"): return (.unauthenticated, [.wipeCredentials])  // S7
        case (.refreshing, "refreshFailed.network"), (.refreshing, "refreshFailed.server"),
            (.refreshing, "refreshFailed.configuration"):
            return (.authenticated, [])  // T5: a failure never signs out
        // S8
        case (.authenticated, "grantExpiredWithoutRefreshToken"), (.refreshing, "grantExpiredWithoutRefreshToken"),
            (.stepUpRequired, "grantExpiredWithoutRefreshToken"):
            return (.unauthenticated, [.wipeCredentials])
        // S9
        case (.loggingOut, "logoutFinished"): return (.unauthenticated, [.wipeCredentials])
        case (.loggingOut, "logoutStarted"): return nil
        case (_, "logoutStarted"): return (.loggingOut, [])
        // S10
        case (.locked, "storageUnlocked"): return (.unauthenticated, [])  // locked at startup: restore again after
        case (.locked, _): return nil
        case (.loggingOut, "storageLocked"): return nil
        case (_, "storageLocked"): return (.locked, [])
        // E9
        case (.loggingOut, "credentialsInvalidated"): return nil
        case (.unauthenticated, "credentialsInvalidated"): return (.unauthenticated, [.wipeCredentials])
        case (_, "credentialsInvalidated"): return (.unauthenticated, [.wipeCredentials])
        default: return nil
        }
    }

    /// A machine standing in `state`, reached through real events from a fresh start.
    static func machine(in state: SessionState) -> SessionMachine {
        var machine = SessionMachine()
        switch state {
        case .unauthenticated: break
        case .authorizing: _ = machine.handle(.loginStarted)
        case .authenticated: _ = machine.handle(.restored(.grant(hasPendingRequest: false)))
        case .refreshing:
            _ = machine.handle(.restored(.grant(hasPendingRequest: false)))
            _ = machine.handle(.refreshStarted)
        case .stepUpRequired:
            _ = machine.handle(.restored(.grant(hasPendingRequest: false)))
            _ = machine.handle(.stepUpDemanded(StepUpChallenge()))
        case .locked: _ = machine.handle(.restored(.locked))
        case .loggingOut:
            _ = machine.handle(.restored(.grant(hasPendingRequest: false)))
            _ = machine.handle(.logoutStarted)
        }
        return machine
    }

    @Test("S1 S4 S5 S6 S7 S8 S9 S10: every (state, event) pair moves as SPEC says", arguments: SessionState.allCases)
    func everyPair(state: SessionState) {
        for (name, event) in Self.events {
            var machine = Self.machine(in: state)
            #expect(machine.state == state)
            let actions = machine.handle(event)
            if let (next, extra) = Self.expected(state, name) {
                #expect(machine.state == next, "\(state) + \(name)")
                let published = actions.filter { if case .publish = $0 { true } else { false } }
                #expect(published == (next == state ? [] : [.publish(next)]), "\(state) + \(name)")
                #expect(Set(actions.filter { if case .publish = $0 { false } else { true } }) == extra, "\(state) + \(name)")
            } else {
                #expect(machine.state == state, "\(state) + \(name) should change nothing")
                #expect(actions.isEmpty, "\(state) + \(name) should do nothing")
            }
        }
    }

    @Test("S1: exactly seven states")
    func sevenStates() {
        #expect(SessionState.allCases.count == 7)
    }

    @Test("S2: refreshing, stepUpRequired, locked and loggingOut hold a grant")
    func subStates() {
        #expect(SessionState.allCases.filter(\.holdsGrant) == [.authenticated, .refreshing, .stepUpRequired, .locked, .loggingOut])
    }

    @Test("S4: a failed re-authorization over a live session returns to it and never wipes")
    func reauthorizationKeepsSession() {
        var machine = Self.machine(in: .authenticated)
        _ = machine.handle(.loginStarted)
        let actions = machine.handle(.authorizationFailed(.reauthenticate(.authorizationDenied)))
        #expect(machine.state == .authenticated)
        #expect(!actions.contains(.wipeCredentials))
    }

    @Test("S5: a failed step-up returns to stepUpRequired; a successful one to authenticated")
    func stepUpRoundTrip() {
        var machine = Self.machine(in: .stepUpRequired)
        _ = machine.handle(.stepUpStarted)
        _ = machine.handle(.authorizationFailed(.recoverable(.userCancelled)))
        #expect(machine.state == .stepUpRequired)
        _ = machine.handle(.stepUpStarted)
        _ = machine.handle(.authorizationSucceeded)
        #expect(machine.state == .authenticated)
    }

    @Test("S10: unlocking returns to the state the lock interrupted, grant intact")
    func unlockReturns() {
        var machine = Self.machine(in: .authenticated)
        _ = machine.handle(.storageLocked)
        #expect(machine.state == .locked)
        #expect(machine.handle(.refreshStarted).isEmpty)
        let actions = machine.handle(.storageUnlocked)
        #expect(machine.state == .authenticated)
        #expect(!actions.contains(.wipeCredentials))
        var refreshing = Self.machine(in: .refreshing)
        _ = refreshing.handle(.storageLocked)
        _ = refreshing.handle(.storageUnlocked)
        #expect(refreshing.state == .authenticated)
    }

    @Test("T6: a transient refresh failure publishes only the return to authenticated")
    func transientFailure() {
        var machine = Self.machine(in: .refreshing)
        let actions = machine.handle(.refreshFailed(.recoverable(.nonceLoop)))
        #expect(actions == [.publish(.authenticated)])
    }
}
