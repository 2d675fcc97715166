import Foundation
import Testing
import VersolaJOSE
@testable import Versola
import VersolaHTTP

@Suite struct SessionMachineTests {
    static let idToken: String = {
        let payload = #"{"iss":"https://id.example","sub":"alice","aud":"cli","exp":4102444800,"iat":1700000000}"#
        return "eyJhbGciOiJSUzI1NiJ9." + Base64URL.encode(Array(payload.utf8)) + ".c2ln"
    }()

    static func grant(refreshToken: String? = "refresh-1") -> Grant {
        Grant(
            accessToken: "", tokenType: .bearer, expiresAt: nil, refreshToken: refreshToken, idToken: idToken,
            claims: IDTokenClaims(restoringValidated: idToken)!, scope: nil, dpopKey: nil)
    }

    static let pending = PendingAuthorization(
        state: "s", nonce: "n", codeVerifier: "verifier-0123456789-0123456789-0123456789",
        redirectURI: "http://127.0.0.1:1/callback", issuer: "https://id.example", clientID: "cli", scope: "openid",
        acrValues: [], maxAge: nil, dpopThumbprint: nil, createdAt: Date())

    static let device = PendingDeviceAuthorization(
        deviceCode: "device-code-SECRET", userCode: "BCDF-GHJK", verificationURI: "https://id.example/device",
        expiresAt: Date().addingTimeInterval(600), issuer: "https://id.example", clientID: "cli", scope: "openid",
        createdAt: Date())

    static let network = VersolaError.recoverable(
        .network(NetworkFailure(kind: .couldNotConnect, requestBytesWritten: false, origin: "x")))

    /// This process starting a refresh of the sample grant.
    static let refreshStarted = SessionEvent.refreshStarted(RefreshSequence(current: grant(), issuer: "https://id.example", clientID: "cli"))

    /// One sample of every event (and of the store contents a change can bring).
    static let events: [(String, SessionEvent)] = [
        ("restored.empty", .restored(.empty)),
        ("restored.grant", .restored(.grant(grant(), refreshing: false, hasPendingRequest: false))),
        ("restored.grant+pending", .restored(.grant(grant(), refreshing: false, hasPendingRequest: true))),
        ("restored.pending", .restored(.pendingRequest(.browser(pending)))),
        ("restored.devicePending", .restored(.pendingRequest(.device(device)))),
        ("restored.expiredPending", .restored(.expiredPendingRequest)),
        ("restored.locked", .restored(.locked)),
        ("restored.unreadable", .restored(.unreadable(.reauthenticate(.credentialsInvalidated)))),
        ("changed.empty", .storeChanged(.empty)),
        ("changed.otherGrant", .storeChanged(.grant(grant(refreshToken: "refresh-2"), refreshing: false, hasPendingRequest: false))),
        ("changed.refreshing", .storeChanged(.grant(grant(refreshToken: "refresh-2"), refreshing: true, hasPendingRequest: false))),
        ("changed.pending", .storeChanged(.pendingRequest(.browser(pending)))),
        ("changed.devicePending", .storeChanged(.pendingRequest(.device(device)))),
        ("changed.unreadable", .storeChanged(.unreadable(.recoverable(.storageUnavailable("no session bus"))))),
        ("changed.invalidated", .storeChanged(.unreadable(.reauthenticate(.credentialsInvalidated)))),
        ("loginStarted", .loginStarted),
        ("stepUpStarted", .stepUpStarted),
        ("loginCancelled", .loginCancelled),
        ("pendingStored", .pendingStored(.browser(pending))),
        ("pendingStored.device", .pendingStored(.device(device))),
        ("deviceLoginStarted", .deviceLoginStarted),
        ("deviceLoginResumed", .deviceLoginResumed),
        ("authorizationSucceeded", .authorizationSucceeded(HeldGrant(grant: grant()))),
        ("authorizationFailed.user", .authorizationFailed(.recoverable(.userCancelled))),
        ("authorizationFailed.system", .authorizationFailed(.recoverable(.systemCancelled))),
        ("authorizationFailed.denied", .authorizationFailed(.reauthenticate(.authorizationDenied))),
        ("pendingExpired", .pendingExpired),
        ("stepUpDemanded", .stepUpDemanded(StepUpChallenge(acrValues: ["mfa"], maxAge: 0))),
        ("refreshStarted", refreshStarted),
        ("refresh.started", .refresh(.started)),
        ("refreshSucceeded", .refreshSucceeded(HeldGrant(grant: grant(refreshToken: "refresh-3")))),
        ("refreshFailed.invalidGrant", .refreshFailed(.reauthenticate(.grantRejected), keptRefreshToken: nil)),
        ("refreshFailed.network", .refreshFailed(network, keptRefreshToken: nil)),
        ("refreshFailed.server", .refreshFailed(.recoverable(.server(ServerFailure(status: 503, failedRequests: 1, elapsed: .zero))), keptRefreshToken: nil)),
        ("refreshFailed.configuration", .refreshFailed(.configuration(.idTokenRejected(IDTokenRejection(.malformed, "x"))), keptRefreshToken: "refresh-9")),
        ("refreshFailed.locked", .refreshFailed(.recoverable(.unlockRequired), keptRefreshToken: nil)),
        ("grantExpiredWithoutRefreshToken", .grantExpiredWithoutRefreshToken),
        ("logoutStarted", .logoutStarted(endSession: false)),
        ("logoutFinished", .logoutFinished(newest: nil, inMemory: nil, endSession: false)),
        ("logoutFinished.revoking", .logoutFinished(newest: grant(refreshToken: "refresh-2"), inMemory: grant(), endSession: true)),
        ("storageLocked", .storageLocked),
        ("storageUnlocked", .storageUnlocked),
    ]

    /// The SPEC, written out per (state, event): the next state and the actions besides
    /// publishing. Pairs not listed change nothing. Written independently of the machine.
    static func expected(_ state: SessionState, _ event: String) -> (SessionState, Set<SessionAction>)? {
        switch (state, event) {
        // Startup restores from any state (S3, P2, P3, S10, E9).
        case (_, "restored.empty"), (_, "restored.unreadable"): return (.unauthenticated, [])
        case (_, "restored.grant"): return (.authenticated, [])
        case (_, "restored.grant+pending"): return (.authenticated, [.discardPendingRequest])  // P3
        case (_, "restored.pending"), (_, "restored.devicePending"): return (.authorizing, [])  // P2, A14
        case (_, "restored.expiredPending"): return (.unauthenticated, [.discardPendingRequest])  // P2
        case (_, "restored.locked"): return (.locked, [])  // S10
        // S11: what another process did to the record.
        case (.authenticated, "changed.empty"), (.refreshing, "changed.empty"), (.stepUpRequired, "changed.empty"):
            return (.unauthenticated, [])
        case (.unauthenticated, "changed.otherGrant"), (.refreshing, "changed.otherGrant"),
            (.stepUpRequired, "changed.otherGrant"):
            return (.authenticated, [])
        case (.authorizing, "changed.otherGrant"), (.authorizing, "changed.refreshing"):
            return (.authenticated, [.endLiveLogin])  // L2: the login was completed elsewhere
        case (.unauthenticated, "changed.refreshing"), (.authenticated, "changed.refreshing"),
            (.stepUpRequired, "changed.refreshing"):
            return (.refreshing, [])
        case (.unauthenticated, "changed.pending"), (.unauthenticated, "changed.devicePending"): return (.authorizing, [])
        // S4
        case (.unauthenticated, "loginStarted"), (.authenticated, "loginStarted"): return (.authorizing, [])
        // A14: a new device login asks for a code (a resume needs a restored device request).
        case (.unauthenticated, "deviceLoginStarted"), (.authenticated, "deviceLoginStarted"):
            return (.authorizing, [.requestDeviceAuthorization])
        // S5
        case (.stepUpRequired, "stepUpStarted"), (.authenticated, "stepUpStarted"): return (.authorizing, [])
        case (.authorizing, "authorizationSucceeded"): return (.authenticated, [.discardPendingRequest])
        case (.authorizing, "loginCancelled"): return (.authorizing, [.cancelLiveLogin])  // E7: this process's login stops
        case (.authorizing, "authorizationFailed.user"), (.authorizing, "authorizationFailed.denied"),
            (.authorizing, "pendingExpired"):
            return (.unauthenticated, [.discardPendingRequest])  // E7; the machine starts from unauthenticated here
        case (.authorizing, "authorizationFailed.system"): return (.unauthenticated, [.keepPendingRequest])  // E7
        case (.authenticated, "stepUpDemanded"): return (.stepUpRequired, [])  // S5
        default: return expectedForTokensAndStorage(state, event)
        }
    }

    /// The rest of ``expected(_:_:)``: refresh, expiry, logout, lock and invalidation.
    static func expectedForTokensAndStorage(_ state: SessionState, _ event: String) -> (SessionState, Set<SessionAction>)? {
        let late = SessionAction.revoke(grant(refreshToken: "refresh-3"))
        switch (state, event) {
        // S6
        case (.authenticated, "refreshStarted"), (.stepUpRequired, "refreshStarted"): return (.refreshing, [])
        case (.refreshing, "refreshSucceeded"): return (.authenticated, [])
        case (.unauthenticated, "refreshSucceeded"), (.loggingOut, "refreshSucceeded"): return (state, [late])  // S12
        case (.refreshing, "refreshFailed.invalidGrant"), (.authenticated, "refreshFailed.invalidGrant"):
            return (.unauthenticated, [.wipeCredentials])  // S7
        case (.refreshing, "refreshFailed.network"), (.refreshing, "refreshFailed.server"),
            (.refreshing, "refreshFailed.configuration"):
            return (.authenticated, [])  // T5: a failure never signs out
        case (.refreshing, "refreshFailed.locked"), (.authenticated, "refreshFailed.locked"): return (.locked, [])  // S13
        // S8 concerns only a grant without a refresh token (SessionMachineTokenTests): the
        // sample grant has one, so the event changes nothing here.
        // S9, S12: the wipe comes first, with the grant held in memory to revoke afterwards.
        case (.loggingOut, "logoutFinished"): return (.unauthenticated, [])
        case (_, "logoutFinished.revoking"):  // A9 A15: due whatever the state once the wipe is done
            let newest = grant(refreshToken: "refresh-2")
            let after: Set<SessionAction> = [.revoke(newest), .revoke(grant()), .openEndSession(idTokenHint: newest.idToken)]
            return (state == .loggingOut ? .unauthenticated : state, after)
        case (_, "logoutStarted"):
            let held: Grant? = state.holdsGrant && state != .locked ? grant() : nil
            return (.loggingOut, [.wipeForLogout(inMemory: held, endSession: false)])
        // S10, S13
        case (.locked, "storageUnlocked"): return (.locked, [.restore])  // locked at startup: read the store
        case (.locked, _), (.loggingOut, "storageLocked"): return nil
        case (_, "storageLocked"): return (.locked, [])
        // E9, S13: only a record that no longer decrypts ends the session.
        case (.loggingOut, "changed.invalidated"), (.unauthenticated, "changed.invalidated"): return nil
        case (_, "changed.invalidated"): return (.unauthenticated, [.wipeCredentials])
        default: return nil
        }
    }

    /// Pairs the machine takes that change no observable state and do nothing: what the store
    /// holds is always taken (S11), and a few events change only data.
    static func acceptedWithoutChange(_ state: SessionState, _ event: String) -> Bool {
        if event.hasPrefix("restored.") { return true }
        if event == "changed.invalidated" { return false }
        if event.hasPrefix("changed.") { return true }
        switch (state, event) {
        case (.authorizing, "pendingStored"), (.authorizing, "pendingStored.device"), (.refreshing, "refreshStarted"),
            (_, "logoutFinished"):
            return true
        // S12: a logout under way carries this process's refresh (SessionMachineRefreshTests).
        case (.loggingOut, "refreshStarted"):
            return true
        // The grant held changes: this login's grant, seen first on disk, now with its access
        // token; a refresh's result reported while another process's refresh is shown (T2).
        case (.authenticated, "authorizationSucceeded"), (.authenticated, "refreshSucceeded"),
            (.authenticated, "refreshFailed.network"), (.authenticated, "refreshFailed.server"),
            (.authenticated, "refreshFailed.configuration"):
            return true
        default: return false
        }
    }

    /// Why a pair is refused: starting a login says why it cannot; anything else does not apply.
    static func refusal(_ state: SessionState, _ event: String) -> SessionRefusal {
        switch event {
        case "loginStarted", "stepUpStarted", "deviceLoginStarted": .cannotStartLogin(state)
        case "deviceLoginResumed": state == .authorizing ? .cannotStartLogin(state) : .noDeviceLoginToResume  // A14
        default: .notApplicable(state)
        }
    }

    /// A machine standing in `state`, reached through real events from a fresh start.
    static func machine(in state: SessionState) -> SessionMachine {
        var machine = SessionMachine()
        let restored = SessionEvent.restored(.grant(grant(), refreshing: false, hasPendingRequest: false))
        switch state {
        case .unauthenticated: break
        case .authorizing: machine.handle(.loginStarted)
        case .authenticated: machine.handle(restored)
        case .refreshing:
            // Another process's refresh, shown from the record's marker: no sequence of this
            // process's is in flight (SessionMachineRefreshTests covers one that is).
            machine.handle(restored)
            machine.handle(.storeChanged(.grant(grant(), refreshing: true, hasPendingRequest: false)))
        case .stepUpRequired:
            machine.handle(restored)
            machine.handle(.stepUpDemanded(StepUpChallenge()))
        case .locked: machine.handle(.restored(.locked))
        case .loggingOut:
            machine.handle(restored)
            machine.handle(.logoutStarted(endSession: false))
        }
        return machine
    }

    @Test(
        "S1 S4 S5 S6 S7 S8 S9 S10 S11 S12 S13 S14: every (state, event) pair moves as SPEC says",
        arguments: SessionState.allCases)
    func everyPair(state: SessionState) {
        for (name, event) in Self.events {
            var machine = Self.machine(in: state)
            #expect(machine.state == state)
            let outcome = machine.handle(event)
            let actions = outcome.actions
            let taken = Self.expected(state, name) != nil || Self.acceptedWithoutChange(state, name)
            #expect(outcome.result == (taken ? .accepted : .refused(Self.refusal(state, name))), "\(state) + \(name)")
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

    @Test("S4: a failed re-authorization over a live session returns to it, grant and all, and never wipes")
    func reauthorizationKeepsSession() {
        var machine = Self.machine(in: .authenticated)
        machine.handle(.loginStarted)
        #expect(machine.heldGrant?.grant == Self.grant())
        let actions = machine.handle(.authorizationFailed(.reauthenticate(.authorizationDenied))).actions
        #expect(machine.state == .authenticated)
        #expect(machine.heldGrant?.grant == Self.grant())
        #expect(!actions.contains(.wipeCredentials))
    }

    @Test("S14: a login supersedes a restored request; cancelLogin() drops one; a live login is never superseded")
    func restoredRequestNeverBlocks() {
        for stored in [PendingRequest.browser(Self.pending), .device(Self.device)] {
            var machine = SessionMachine()
            machine.handle(.restored(.pendingRequest(stored)))
            #expect(machine.state == .authorizing)
            #expect(!machine.runsLiveLogin)
            let actions = machine.handle(.loginStarted).actions
            #expect(actions == [.discardPendingRequest])
            #expect(machine.state == .authorizing && machine.runsLiveLogin && machine.pendingRequest == nil)
            // A second login while this one runs is refused, and cancelling stops it.
            #expect(machine.handle(.loginStarted).actions.isEmpty)
            #expect(machine.handle(.loginCancelled).actions == [.cancelLiveLogin])
            machine.handle(.authorizationFailed(.recoverable(.userCancelled)))
            #expect(machine.state == .unauthenticated)

            var cancelled = SessionMachine()
            cancelled.handle(.restored(.pendingRequest(stored)))
            #expect(cancelled.handle(.loginCancelled).actions == [.publish(.unauthenticated), .discardPendingRequest])
            #expect(cancelled.state == .unauthenticated)
        }
        // A device login supersedes a restored browser request; it resumes a device one.
        var machine = SessionMachine()
        machine.handle(.restored(.pendingRequest(.browser(Self.pending))))
        #expect(machine.handle(.deviceLoginResumed).actions.isEmpty)
        #expect(Set(machine.handle(.deviceLoginStarted).actions) == [.discardPendingRequest, .requestDeviceAuthorization])
        var device = SessionMachine()
        device.handle(.restored(.pendingRequest(.device(Self.device))))
        #expect(device.handle(.deviceLoginStarted).actions == [.pollDeviceAuthorization(Self.device)])
        // Another process's request seen through the store is superseded the same way.
        var seen = SessionMachine()
        seen.handle(.storeChanged(.pendingRequest(.browser(Self.pending))))
        #expect(seen.handle(.loginStarted).actions == [.discardPendingRequest])
    }

    @Test("S5: a failed step-up returns to stepUpRequired; a successful one to authenticated")
    func stepUpRoundTrip() {
        var machine = Self.machine(in: .stepUpRequired)
        machine.handle(.stepUpStarted)
        machine.handle(.authorizationFailed(.recoverable(.userCancelled)))
        #expect(machine.state == .stepUpRequired)
        machine.handle(.stepUpStarted)
        machine.handle(.authorizationSucceeded(HeldGrant(grant: Self.grant(refreshToken: "new"))))
        #expect(machine.state == .authenticated)
        #expect(machine.heldGrant?.grant.refreshToken == "new")
    }

    @Test("S13 S10: locking mid-session and unlocking returns to the state the lock interrupted, grant intact")
    func unlockReturns() {
        var machine = Self.machine(in: .authenticated)
        machine.handle(.storageLocked)
        #expect(machine.state == .locked)
        #expect(machine.handle(Self.refreshStarted) == .refused(.notApplicable(.locked)))
        let actions = machine.handle(.storageUnlocked).actions
        #expect(machine.state == .authenticated)
        #expect(machine.heldGrant?.grant == Self.grant())
        #expect(!actions.contains(.wipeCredentials))
        var refreshing = Self.machine(in: .refreshing)
        refreshing.handle(.refreshFailed(.recoverable(.unlockRequired), keptRefreshToken: nil))
        #expect(refreshing.state == .locked)
        refreshing.handle(.storageUnlocked)
        #expect(refreshing.state == .authenticated)
        var stepUp = Self.machine(in: .stepUpRequired)
        stepUp.handle(.storageLocked)
        stepUp.handle(.storageUnlocked)
        #expect(stepUp.state == .stepUpRequired)
        // Unlocking in any other state is no event at all.
        var plain = Self.machine(in: .authenticated)
        #expect(plain.handle(.storageUnlocked).actions.isEmpty)
    }

    @Test("P10: a refresh failing after the provider rotated keeps the rotated token as the grant's")
    func rotatedTokenKept() {
        var machine = Self.machine(in: .refreshing)
        machine.handle(.refreshFailed(.configuration(.idTokenRejected(IDTokenRejection(.expired, "expired"))), keptRefreshToken: "rotated"))
        #expect(machine.state == .authenticated)
        #expect(machine.heldGrant?.grant.refreshToken == "rotated")
        #expect(machine.heldGrant?.token == nil)
    }

    @Test("S11: a grant rotated elsewhere voids the access token held from the old one; the same grant keeps it")
    func foreignRotationVoidsToken() {
        var machine = SessionMachine()
        let token = HeldAccessToken(value: "access", expiresIn: .seconds(600), mintedAt: .zero)
        machine.handle(.restored(.grant(Self.grant(), refreshing: false, hasPendingRequest: false)))
        machine.handle(.accessTokenHeld(token, expiresAt: nil))
        #expect(machine.heldGrant?.token == token)
        machine.handle(.storeChanged(.grant(Self.grant(), refreshing: false, hasPendingRequest: false)))
        #expect(machine.heldGrant?.token == token)
        let actions = machine.handle(.storeChanged(.grant(Self.grant(refreshToken: "elsewhere"), refreshing: false, hasPendingRequest: false))).actions
        #expect(actions.isEmpty)
        #expect(machine.heldGrant?.token == nil)
        #expect(machine.heldGrant?.grant.refreshToken == "elsewhere")
    }

    @Test("A14 P2 S14: a device login takes up a restored device request once; a restored browser request it supersedes")
    func deviceRequestResumed() {
        var machine = SessionMachine()
        machine.handle(.restored(.pendingRequest(.device(Self.device))))
        #expect(!machine.runsLiveLogin)
        #expect(machine.handle(.deviceLoginStarted).actions == [.pollDeviceAuthorization(Self.device)])
        #expect(machine.state == .authorizing)
        #expect(machine.runsLiveLogin)
        #expect(machine.handle(.deviceLoginStarted).actions.isEmpty, "a login already runs it")
        #expect(machine.handle(.deviceLoginResumed).actions.isEmpty)
        var resuming = SessionMachine()
        resuming.handle(.restored(.pendingRequest(.device(Self.device))))
        #expect(resuming.handle(.deviceLoginResumed).actions == [.pollDeviceAuthorization(Self.device)])
        var browser = SessionMachine()
        browser.handle(.restored(.pendingRequest(.browser(Self.pending))))
        #expect(browser.handle(.deviceLoginResumed).actions.isEmpty)
        #expect(!browser.runsLiveLogin)
        #expect(Set(browser.handle(.deviceLoginStarted).actions) == [.discardPendingRequest, .requestDeviceAuthorization])
        #expect(browser.runsLiveLogin)
    }

    @Test("A14 E7: a resumed device login that fails returns to signed out and drops the request; a system cancel keeps it")
    func resumedDeviceLoginFails() {
        var machine = SessionMachine()
        machine.handle(.restored(.pendingRequest(.device(Self.device))))
        machine.handle(.deviceLoginResumed)
        #expect(machine.handle(.authorizationFailed(.recoverable(.pendingRequestExpired))).actions == [.publish(.unauthenticated), .discardPendingRequest])
        var cancelled = SessionMachine()
        cancelled.handle(.restored(.pendingRequest(.device(Self.device))))
        cancelled.handle(.deviceLoginResumed)
        #expect(cancelled.handle(.authorizationFailed(.recoverable(.systemCancelled))).actions == [.publish(.unauthenticated), .keepPendingRequest])
    }

    @Test("T6: a transient refresh failure publishes only the return to authenticated")
    func transientFailure() {
        var machine = Self.machine(in: .refreshing)
        let actions = machine.handle(.refreshFailed(.recoverable(.nonceLoop), keptRefreshToken: nil)).actions
        #expect(actions == [.publish(.authenticated)])
    }
}
