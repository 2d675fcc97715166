import VersolaHTTP
import Foundation

/// The session's transitions as a pure value (SPEC S1–S14).
///
/// The machine owns the session's data: the grant and the access token held in memory live on
/// the states that hold a grant, the pending request on `authorizing`, and where a login, a
/// step-up or a lock returns to on the state it interrupted. Each event has one method with an
/// exhaustive switch over the states; it returns an explicit result (accepted, or refused with
/// why) and the actions the owning actor carries out, in order (write, wipe, publish, revoke,
/// stop the browser leg, open the end-session page). A refused event changes nothing and
/// returns no action. What the store holds is accepted, being the truth (S11); only a record
/// that stopped decrypting is refused where there is no grant to end.
struct SessionMachine: Sendable, Hashable {
    /// The state and its data; changed only by the event methods (here and in
    /// SessionMachine+Store.swift).
    var phase: SessionPhase

    /// Why the last read of the store failed, when it did (E9): the error an operation reports
    /// instead of a bare "signed out". A lock leaves it as it was; a read that works clears it.
    var readProblem: VersolaError?
    /// Set when another process completed this process's live login (L2), so that its ending
    /// is a success; cleared when a login starts.
    var loginCompletedElsewhere = false
    /// When a held access token may be served, and the clock verdict (T1, T3): once a
    /// brand-new token reads expired by its `exp`, only the local deadline is trusted.
    var freshness: AccessTokenFreshness
    /// A renewed record the store refused, held until it is written (P10).
    var heldBack: HeldBackRecord?

    /// A machine in the signed-out state (a new session stays there until restored) that
    /// gives up an access token `refreshMargin` before its expiry (T1).
    init(refreshMargin: Duration = .zero) {
        phase = .unauthenticated
        freshness = AccessTokenFreshness(margin: refreshMargin)
    }

    /// Whether `token` may be served at `now` (T1, T3); `renewable` when a refresh token
    /// stands behind it (P13).
    func verdict(for token: HeldAccessToken, at now: ClockReading, renewable: Bool) -> AccessTokenFreshness.Verdict {
        freshness.verdict(for: token, monotonicNow: now.monotonic, wallNow: now.wall, renewable: renewable)
    }

    /// The observable state (S1).
    var state: SessionState { phase.state }

    /// The grant held in this state, if any (S2).
    var heldGrant: HeldGrant? { phase.heldGrant }

    /// The pending request of `authorizing`, if any.
    var pendingRequest: PendingRequest? {
        if case .authorizing(let authorizing) = phase { authorizing.pending } else { nil }
    }

    /// Whether this process runs the browser leg of the login in progress (its listener waits).
    var runsLiveLogin: Bool {
        if case .authorizing(let authorizing) = phase { authorizing.live } else { false }
    }

    /// Whether a sign-in fixes the last read's failure (P12: it moves the record that no longer
    /// decrypts aside).
    var signInFixesReadProblem: Bool { readProblem == .reauthenticate(.credentialsInvalidated) }

    /// Applies `event` and returns whether it was taken and what to do.
    @discardableResult
    mutating func handle(_ event: SessionEvent) -> SessionOutcome {
        let outcome = outcome(of: event)
        // S7, S8, S9: a wipe drops a record held for a later write with everything else.
        if outcome.actions.contains(.wipeCredentials) { heldBack = nil }
        return outcome
    }

    private mutating func outcome(of event: SessionEvent) -> SessionOutcome {
        switch event {
        case .renewalRefused(let record, let replacing): return renewalRefused(record, replacing: replacing)
        case .heldBackWritten: return heldBackWritten()
        case .heldBackSuperseded: return heldBackSuperseded()
        case .refreshStarted(let sequence): return refreshStarted(sequence)
        case .refresh(let step): return refreshEvent(step)
        default: return transition(event)
        }
    }

    private mutating func transition(_ event: SessionEvent) -> SessionOutcome {
        switch event {
        case .restored(let stored): restored(stored)
        case .storeChanged(let stored): storeChanged(stored)
        case .loginStarted: authorizationStarted(stepUp: false)
        case .stepUpStarted: authorizationStarted(stepUp: true)
        case .loginCancelled: loginCancelled()
        case .deviceLoginStarted: deviceLoginStarted(resumeOnly: false)
        case .deviceLoginResumed: deviceLoginStarted(resumeOnly: true)
        case .pendingStored(let pending): pendingStored(pending)
        case .authorizationSucceeded(let grant): authorizationSucceeded(grant)
        case .authorizationFailed(let error): authorizationFailed(error)
        case .pendingExpired: pendingExpired()
        case .stepUpDemanded(let challenge): stepUpDemanded(challenge)
        case .refreshSucceeded(let grant): refreshSucceeded(grant)
        case .refreshFailed(let error, let keptRefreshToken): refreshFailed(error, keeping: keptRefreshToken)
        case .accessTokenHeld(let token, let expiresAt, let minted): accessTokenHeld(token, expiresAt: expiresAt, minted: minted)
        case .accessTokenOffered(let value, let expiresAt, let idToken, let now):
            accessTokenOffered(value, expiresAt: expiresAt, idToken: idToken, at: now)
        case .grantExpiredWithoutRefreshToken: grantExpiredWithoutRefreshToken()
        case .logoutStarted(let endSession): logoutStarted(endSession: endSession)
        case .logoutFinished(let newest, let inMemory, let endSession):
            logoutFinished(newest: newest, inMemory: inMemory, endSession: endSession)
        case .storageLocked: storageLocked()
        case .storageUnlocked: storageUnlocked()
        case .renewalRefused, .heldBackWritten, .heldBackSuperseded, .refreshStarted, .refresh: ignored()
        }
    }

    // MARK: Authorization

    private mutating func authorizationStarted(stepUp: Bool) -> SessionOutcome {
        // S14: a request no process here runs (restored, left by a cancelled task, begun
        // elsewhere) is superseded: the new login starts from where that one would return.
        let (from, superseded) = startingPoint()
        let allowed: Bool
        switch from {
        case .authenticated: allowed = true
        case .unauthenticated: allowed = !stepUp
        case .stepUpRequired: allowed = stepUp
        case .authorizing, .refreshing, .locked, .loggingOut: allowed = false
        }
        guard allowed else { return .refused(.cannotStartLogin(phase.state)) }
        loginCompletedElsewhere = false
        return move(to: .authorizing(Authorizing(pending: nil, live: true, before: from)))
            + (superseded ? [.discardPendingRequest] : [])
    }

    /// Where a new login starts: the state itself, or for `authorizing` with no live login in
    /// this process, the state before that request (and the request is superseded, S14).
    private func startingPoint() -> (SessionPhase, superseded: Bool) {
        if case .authorizing(let authorizing) = phase, !authorizing.live { return (authorizing.before, true) }
        return (phase, false)
    }

    /// `cancelLogin()` (E7, S14): a login this process runs is stopped (it then ends
    /// `userCancelled`); a request no process here runs is dropped, back to the state before it.
    private mutating func loginCancelled() -> SessionOutcome {
        switch phase {
        case .authorizing(let authorizing) where authorizing.live: return .accepted([.cancelLiveLogin])
        case .authorizing(let authorizing): return move(to: authorizing.before) + [.discardPendingRequest]
        case .unauthenticated, .authenticated, .refreshing, .stepUpRequired, .locked, .loggingOut: return ignored()
        }
    }

    /// A14: a device login takes up a device request restored from disk (P2), which no
    /// process runs; otherwise it starts like `login()` (never over a step-up: the device flow
    /// carries no `acr_values`).
    private mutating func deviceLoginStarted(resumeOnly: Bool) -> SessionOutcome {
        let refusal: SessionRefusal = resumeOnly ? .noDeviceLoginToResume : .cannotStartLogin(phase.state)
        switch phase {
        case .authorizing(var authorizing):
            if authorizing.live { return .refused(.cannotStartLogin(phase.state)) }
            if case .device(let device)? = authorizing.pending {
                loginCompletedElsewhere = false
                authorizing.live = true
                phase = .authorizing(authorizing)
                return .accepted([.pollDeviceAuthorization(device)])
            }
            // S14: a restored browser request cannot be resumed here; a new device login supersedes it.
            let from = authorizing.before
            guard !resumeOnly, from.state == .unauthenticated || from.state == .authenticated else { return .refused(refusal) }
            loginCompletedElsewhere = false
            return move(to: .authorizing(Authorizing(pending: nil, live: true, before: from)))
                + [.discardPendingRequest, .requestDeviceAuthorization]
        case .unauthenticated, .authenticated:
            if resumeOnly { return .refused(refusal) }
            loginCompletedElsewhere = false
            return move(to: .authorizing(Authorizing(pending: nil, live: true, before: phase))) + [.requestDeviceAuthorization]
        case .refreshing, .stepUpRequired, .locked, .loggingOut:
            return .refused(refusal)
        }
    }

    private mutating func pendingStored(_ pending: PendingRequest) -> SessionOutcome {
        switch phase {
        case .authorizing(var authorizing):
            authorizing.pending = pending
            phase = .authorizing(authorizing)
            return .accepted()
        case .unauthenticated, .authenticated, .refreshing, .stepUpRequired, .locked, .loggingOut:
            return ignored()
        }
    }

    private mutating func authorizationSucceeded(_ fresh: HeldGrant) -> SessionOutcome {
        // P12: the sign-in moved a record that no longer decrypted aside.
        if signInFixesReadProblem { readProblem = nil }
        switch phase {
        case .authorizing:
            // P9: the sign-in's record replaced whatever was held for a later write.
            heldBack = nil
            return move(to: .authenticated(fresh)) + [.discardPendingRequest]
        case .authenticated(let held) where held.grant.refreshToken == fresh.grant.refreshToken:
            // The store change of this very login arrived first; now the access token is known too.
            phase = .authenticated(fresh)
            return .accepted()
        case .unauthenticated, .authenticated, .refreshing, .stepUpRequired, .locked, .loggingOut:
            return ignored()
        }
    }

    private mutating func authorizationFailed(_ error: VersolaError) -> SessionOutcome {
        if loginCompletedElsewhere, case .authenticated = phase {
            // L2: this login's leg was stopped because another process finished it.
            loginCompletedElsewhere = false
            return .refused(.loginCompletedElsewhere)
        }
        switch phase {
        case .authorizing(let authorizing):
            // S4: back to where the login started; an existing grant is never dropped. E7: a
            // system cancel keeps the pending request so the flow can resume.
            let pending: SessionAction = error == .recoverable(.systemCancelled) ? .keepPendingRequest : .discardPendingRequest
            return move(to: authorizing.before) + [pending]
        case .unauthenticated, .authenticated, .refreshing, .stepUpRequired, .locked, .loggingOut:
            return ignored()
        }
    }

    private mutating func pendingExpired() -> SessionOutcome {
        switch phase {
        case .authorizing(let authorizing): return move(to: authorizing.before) + [.discardPendingRequest]
        case .unauthenticated, .authenticated, .refreshing, .stepUpRequired, .locked, .loggingOut: return ignored()
        }
    }

    // MARK: Tokens

    private mutating func stepUpDemanded(_ challenge: StepUpChallenge) -> SessionOutcome {
        switch phase {
        case .authenticated(let held): return move(to: .stepUpRequired(held, challenge))
        case .unauthenticated, .authorizing, .refreshing, .stepUpRequired, .locked, .loggingOut: return ignored()
        }
    }

    private mutating func accessTokenHeld(_ token: HeldAccessToken, expiresAt: Date?, minted: ClockReading?) -> SessionOutcome {
        switch phase {
        case .authenticated(var held):
            if let minted { freshness.checkFreshToken(token, monotonicNow: minted.monotonic, wallNow: minted.wall) }
            held.token = token
            held.grant.accessToken = token.value
            held.grant.expiresAt = expiresAt
            phase = .authenticated(held)
            return .accepted()
        case .unauthenticated, .authorizing, .refreshing, .stepUpRequired, .locked, .loggingOut:
            return ignored()
        }
    }

    /// Another process's login hands over its access token: only for the grant held, the one
    /// on disk (its ID token says so); minted moments ago, so checked as T3 asks.
    private mutating func accessTokenOffered(_ value: String, expiresAt: Date?, idToken: String?, at now: ClockReading)
        -> SessionOutcome
    {
        guard case .authenticated(let held) = phase, held.grant.idToken == idToken, !value.isEmpty else { return ignored() }
        var grant = held.grant
        grant.accessToken = value
        grant.expiresAt = expiresAt
        guard let token = HeldGrant(minting: grant, at: now).token else { return ignored() }
        return accessTokenHeld(token, expiresAt: expiresAt, minted: now)
    }

    /// S8: a grant without a refresh token whose access token expired ends. Not a grant with a
    /// refresh token (a refresh renews it), nor one whose access token this process never had
    /// (restored from an older record): that is left to the process that has it.
    private mutating func grantExpiredWithoutRefreshToken() -> SessionOutcome {
        guard let grant = phase.heldGrant?.grant, grant.refreshToken == nil, !grant.accessToken.isEmpty else { return ignored() }
        switch phase {
        case .authenticated, .refreshing, .stepUpRequired: return move(to: .unauthenticated) + [.wipeCredentials]
        case .unauthenticated, .authorizing, .locked, .loggingOut: return ignored()
        }
    }

    // MARK: Logout

    /// S9, S12: the wipe comes first, even when the store is locked; a logout that starts while
    /// another runs wipes and revokes too. P10: a renewed record held back for a later write is
    /// newer than the grant the state holds, so its grant is the one in memory to revoke.
    private mutating func logoutStarted(endSession: Bool) -> SessionOutcome {
        let inMemory = heldBack?.record.grant ?? phase.heldGrant?.grant
        let wipe = SessionAction.wipeForLogout(inMemory: inMemory, endSession: endSession)
        // The held-back record is wiped with the rest; its grant is revoked as the one in memory.
        let dropped: [SessionAction] = heldBack == nil ? [] : [.stopRetryingHeldBack]
        heldBack = nil
        switch phase {
        case .loggingOut: return .accepted(dropped + [wipe])
        case .unauthenticated, .authorizing, .authenticated, .refreshing, .stepUpRequired, .locked:
            // S12, P10: this process's refresh in flight goes on, so that a rotated token that
            // arrives is stored before the wipe (which waits for the profile lock) reads it.
            return move(to: .loggingOut(phase.heldGrant, phase.refreshInFlight)) + dropped + [wipe]
        }
    }

    /// S12, A9: once wiped, `unauthenticated` is published, then the newest refresh token is
    /// revoked (the one on disk, then the one in memory when it differs), or for a grant
    /// without one, its access token (P13); A15: the end-session
    /// page opens last. The revocations are due in every state: the wipe is done.
    private mutating func logoutFinished(newest: Grant?, inMemory: Grant?, endSession: Bool) -> SessionOutcome {
        var ending: [Grant] = []
        if let newest, newest.revocableToken != nil { ending.append(newest) }
        if let inMemory, let token = inMemory.revocableToken, !ending.contains(where: { $0.revocableToken == token }) {
            ending.append(inMemory)
        }
        let after = ending.map(SessionAction.revoke) + (endSession ? [.openEndSession(idTokenHint: (ending.first ?? inMemory)?.idToken)] : [])
        switch phase {
        case .loggingOut: return move(to: .unauthenticated) + after
        case .unauthenticated, .authorizing, .authenticated, .refreshing, .stepUpRequired, .locked: return .accepted(after)
        }
    }

    // MARK: Storage

    mutating func storageLocked() -> SessionOutcome {
        switch phase {
        case .authenticated, .stepUpRequired, .unauthenticated, .authorizing:
            return move(to: .locked(resume: phase))
        case .refreshing(let held, let inFlight):
            // S10, P10: this process's refresh goes on (a write it cannot make is held back)
            // and unlocking returns to it while it runs; another's is over once unlocked.
            return move(to: .locked(resume: inFlight.map { .refreshing(held, $0) } ?? .authenticated(held)))
        case .locked, .loggingOut:
            return ignored()
        }
    }

    private mutating func storageUnlocked() -> SessionOutcome {
        switch phase {
        case .locked(let resume?): return move(to: resume)
        case .locked(nil): return .accepted([.restore])
        case .unauthenticated, .authorizing, .authenticated, .refreshing, .stepUpRequired, .loggingOut: return ignored()
        }
    }

    /// E9, S13: the stored secrets stopped decrypting (a read of the store said so): a sign-out.
    mutating func credentialsInvalidated() -> SessionOutcome {
        switch phase {
        case .loggingOut, .locked:
            // While locked nothing can be decrypted; unlocking reads the record again.
            return ignored()
        case .unauthenticated:
            // Holding no grant, there is nothing to invalidate: a record this session cannot
            // open is kept, as at startup (E9), since it may be another process's, sealed with
            // another key source (a login that just moved the profile to one).
            return ignored()
        case .authorizing, .authenticated, .refreshing, .stepUpRequired:
            return move(to: .unauthenticated) + [.wipeCredentials]
        }
    }

    /// Moves to `next`; publishes only when the observable state changes (T6).
    mutating func move(to next: SessionPhase) -> SessionOutcome {
        let changed = next.state != phase.state
        phase = next
        return .accepted(changed ? [.publish(next.state)] : [])
    }

    /// The event does not concern the state the machine is in.
    func ignored() -> SessionOutcome {
        .refused(.notApplicable(phase.state))
    }
}
