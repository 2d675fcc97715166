import VersolaHTTP
import Foundation

/// The session's transitions as a pure value (SPEC S1–S14).
///
/// The machine owns the session's data: the grant and the access token held in memory live on
/// the states that hold a grant, the pending request on `authorizing`, and where a login, a
/// step-up or a lock returns to on the state it interrupted. Each event has one method with an
/// exhaustive switch over the states; it returns the actions the owning actor carries out
/// (write, wipe, publish, revoke, stop the browser leg). An event that makes no sense in a
/// state is an explicit outcome there: it changes nothing and returns no action.
struct SessionMachine: Sendable, Hashable {
    /// The state and its data.
    private(set) var phase: SessionPhase

    /// A machine in the signed-out state (a new session stays there until restored).
    init() {
        phase = .unauthenticated
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

    /// Applies `event` and returns what to do.
    @discardableResult
    mutating func handle(_ event: SessionEvent) -> [SessionAction] {
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
        case .refreshStarted: refreshStarted()
        case .refreshSucceeded(let grant): refreshSucceeded(grant)
        case .refreshFailed(let error, let keptRefreshToken): refreshFailed(error, keeping: keptRefreshToken)
        case .accessTokenHeld(let token, let expiresAt): accessTokenHeld(token, expiresAt: expiresAt)
        case .grantExpiredWithoutRefreshToken: grantExpiredWithoutRefreshToken()
        case .logoutStarted: logoutStarted()
        case .logoutFinished: logoutFinished()
        case .storageLocked: storageLocked()
        case .storageUnlocked: storageUnlocked()
        case .credentialsInvalidated: credentialsInvalidated()
        }
    }

    // MARK: Reading the store

    /// Startup: the record decides, whatever the state was (T5, P2, P3, S10).
    private mutating func restored(_ stored: StoredSession) -> [SessionAction] {
        switch stored {
        case .empty, .unreadable: return move(to: .unauthenticated)
        case .grant(let grant, _, let hasPendingRequest):
            return move(to: .authenticated(HeldGrant(grant: grant))) + (hasPendingRequest ? [.discardPendingRequest] : [])
        case .pendingRequest(let pending):
            return move(to: .authorizing(Authorizing(pending: pending, live: false, before: .unauthenticated)))
        case .expiredPendingRequest: return move(to: .unauthenticated) + [.discardPendingRequest]
        case .locked: return move(to: .locked(resume: nil))
        }
    }

    /// Another process changed the record (S11): follow it. An access token held from an
    /// older record is void once the grant on disk is another one.
    private mutating func storeChanged(_ stored: StoredSession) -> [SessionAction] {
        switch phase {
        case .unauthenticated:
            switch stored {
            case .empty, .unreadable, .expiredPendingRequest, .locked: return []
            case .grant(let grant, let refreshing, _):
                return move(to: refreshing ? .refreshing(HeldGrant(grant: grant)) : .authenticated(HeldGrant(grant: grant)))
            case .pendingRequest(let pending):
                return move(to: .authorizing(Authorizing(pending: pending, live: false, before: .unauthenticated)))
            }
        case .authorizing(let authorizing):
            switch stored {
            case .grant(let grant, _, false) where authorizing.live || authorizing.before.heldGrant?.grant.refreshToken != grant.refreshToken:
                // The pending request was answered elsewhere (`handle-redirect`, L2): this login is done.
                return move(to: .authenticated(HeldGrant(grant: grant))) + (authorizing.live ? [.endLiveLogin] : [])
            case .grant, .locked, .expiredPendingRequest: return []
            case .pendingRequest(let pending):
                var updated = authorizing
                updated.pending = pending
                phase = .authorizing(updated)
                return []
            case .empty, .unreadable:
                // A live login keeps waiting (its own listener finishes it); a restored one is gone.
                return authorizing.live ? [] : move(to: .unauthenticated)
            }
        case .authenticated(let held), .stepUpRequired(let held, _):
            switch stored {
            case .grant(let grant, let refreshing, _):
                let next = held.following(grant)
                if refreshing { return move(to: .refreshing(next)) }
                if case .stepUpRequired(_, let challenge) = phase, next == held { return move(to: .stepUpRequired(next, challenge)) }
                return move(to: .authenticated(next))
            case .empty, .unreadable: return move(to: .unauthenticated)
            case .pendingRequest, .expiredPendingRequest, .locked: return []
            }
        case .refreshing(let held):
            switch stored {
            case .grant(let grant, true, _): return move(to: .refreshing(held.following(grant)))
            case .grant(let grant, false, _): return move(to: .authenticated(held.following(grant)))
            case .empty, .unreadable: return move(to: .unauthenticated)
            case .pendingRequest, .expiredPendingRequest, .locked: return []
            }
        case .locked, .loggingOut:
            // Locked: the record cannot be read now; unlocking reads it. Logging out: the wipe decides.
            return []
        }
    }

    // MARK: Authorization

    private mutating func authorizationStarted(stepUp: Bool) -> [SessionAction] {
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
        guard allowed else { return [] }
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
    private mutating func loginCancelled() -> [SessionAction] {
        switch phase {
        case .authorizing(let authorizing) where authorizing.live: return [.cancelLiveLogin]
        case .authorizing(let authorizing): return move(to: authorizing.before) + [.discardPendingRequest]
        case .unauthenticated, .authenticated, .refreshing, .stepUpRequired, .locked, .loggingOut: return []
        }
    }

    /// A14: a device login takes up a device request restored from disk (P2), which no
    /// process runs; otherwise it starts like `login()` (never over a step-up: the device flow
    /// carries no `acr_values`).
    private mutating func deviceLoginStarted(resumeOnly: Bool) -> [SessionAction] {
        switch phase {
        case .authorizing(var authorizing):
            if authorizing.live { return [] }
            if case .device(let device)? = authorizing.pending {
                authorizing.live = true
                phase = .authorizing(authorizing)
                return [.pollDeviceAuthorization(device)]
            }
            // S14: a restored browser request cannot be resumed here; a new device login supersedes it.
            if resumeOnly { return [] }
            let from = authorizing.before
            guard from.state == .unauthenticated || from.state == .authenticated else { return [] }
            return move(to: .authorizing(Authorizing(pending: nil, live: true, before: from)))
                + [.discardPendingRequest, .requestDeviceAuthorization]
        case .unauthenticated, .authenticated:
            if resumeOnly { return [] }
            return move(to: .authorizing(Authorizing(pending: nil, live: true, before: phase))) + [.requestDeviceAuthorization]
        case .refreshing, .stepUpRequired, .locked, .loggingOut:
            return []
        }
    }

    private mutating func pendingStored(_ pending: PendingRequest) -> [SessionAction] {
        switch phase {
        case .authorizing(var authorizing):
            authorizing.pending = pending
            phase = .authorizing(authorizing)
            return []
        case .unauthenticated, .authenticated, .refreshing, .stepUpRequired, .locked, .loggingOut:
            return []
        }
    }

    private mutating func authorizationSucceeded(_ fresh: HeldGrant) -> [SessionAction] {
        switch phase {
        case .authorizing:
            return move(to: .authenticated(fresh)) + [.discardPendingRequest]
        case .authenticated(let held) where held.grant.refreshToken == fresh.grant.refreshToken:
            // The store change of this very login arrived first; now the access token is known too.
            phase = .authenticated(fresh)
            return []
        case .unauthenticated, .authenticated, .refreshing, .stepUpRequired, .locked, .loggingOut:
            return []
        }
    }

    private mutating func authorizationFailed(_ error: VersolaError) -> [SessionAction] {
        switch phase {
        case .authorizing(let authorizing):
            // S4: back to where the login started; an existing grant is never dropped. E7: a
            // system cancel keeps the pending request so the flow can resume.
            let pending: SessionAction = error == .recoverable(.systemCancelled) ? .keepPendingRequest : .discardPendingRequest
            return move(to: authorizing.before) + [pending]
        case .unauthenticated, .authenticated, .refreshing, .stepUpRequired, .locked, .loggingOut:
            return []
        }
    }

    private mutating func pendingExpired() -> [SessionAction] {
        switch phase {
        case .authorizing(let authorizing): return move(to: authorizing.before) + [.discardPendingRequest]
        case .unauthenticated, .authenticated, .refreshing, .stepUpRequired, .locked, .loggingOut: return []
        }
    }

    // MARK: Tokens

    private mutating func stepUpDemanded(_ challenge: StepUpChallenge) -> [SessionAction] {
        switch phase {
        case .authenticated(let held): return move(to: .stepUpRequired(held, challenge))
        case .unauthenticated, .authorizing, .refreshing, .stepUpRequired, .locked, .loggingOut: return []
        }
    }

    private mutating func refreshStarted() -> [SessionAction] {
        switch phase {
        case .authenticated(let held), .stepUpRequired(let held, _): return move(to: .refreshing(held))
        case .refreshing:
            // Another process's refresh was being shown; this one now runs its own.
            return []
        case .unauthenticated, .authorizing, .locked, .loggingOut: return []
        }
    }

    private mutating func refreshSucceeded(_ fresh: HeldGrant) -> [SessionAction] {
        switch phase {
        case .refreshing, .authenticated:
            return move(to: .authenticated(fresh))
        case .loggingOut, .unauthenticated:
            // S12: a refresh that finishes after logout began is discarded, its new token revoked.
            return [.revoke(fresh.grant)]
        case .authorizing, .stepUpRequired, .locked:
            return []
        }
    }

    private mutating func refreshFailed(_ error: VersolaError, keeping keptRefreshToken: String?) -> [SessionAction] {
        switch phase {
        case .refreshing(var held), .authenticated(var held):
            // S7: only the provider refusing the grant ends it. A network or server failure keeps
            // the session (T5), and so does anything the user retrying cannot fix; a refresh
            // token the provider already rotated is kept whatever failed after it arrived (P10).
            if case .reauthenticate = error { return move(to: .unauthenticated) + [.wipeCredentials] }
            if error == .recoverable(.unlockRequired) { return storageLocked() }
            if let keptRefreshToken {
                held.grant.refreshToken = keptRefreshToken
                held.token = nil
            }
            return move(to: .authenticated(held))
        case .unauthenticated, .authorizing, .stepUpRequired, .locked, .loggingOut:
            return []
        }
    }

    private mutating func accessTokenHeld(_ token: HeldAccessToken, expiresAt: Date?) -> [SessionAction] {
        switch phase {
        case .authenticated(var held):
            held.token = token
            held.grant.accessToken = token.value
            held.grant.expiresAt = expiresAt
            phase = .authenticated(held)
            return []
        case .unauthenticated, .authorizing, .refreshing, .stepUpRequired, .locked, .loggingOut:
            return []
        }
    }

    private mutating func grantExpiredWithoutRefreshToken() -> [SessionAction] {
        switch phase {
        case .authenticated, .refreshing, .stepUpRequired: return move(to: .unauthenticated) + [.wipeCredentials]
        case .unauthenticated, .authorizing, .locked, .loggingOut: return []
        }
    }

    // MARK: Logout

    private mutating func logoutStarted() -> [SessionAction] {
        switch phase {
        case .loggingOut: return []
        case .unauthenticated, .authorizing, .authenticated, .refreshing, .stepUpRequired, .locked:
            // S9: the local wipe happens even when the store is locked.
            return move(to: .loggingOut(phase.heldGrant))
        }
    }

    private mutating func logoutFinished() -> [SessionAction] {
        switch phase {
        case .loggingOut: return move(to: .unauthenticated)
        case .unauthenticated, .authorizing, .authenticated, .refreshing, .stepUpRequired, .locked: return []
        }
    }

    // MARK: Storage

    private mutating func storageLocked() -> [SessionAction] {
        switch phase {
        case .authenticated, .stepUpRequired, .unauthenticated, .authorizing:
            return move(to: .locked(resume: phase))
        case .refreshing(let held):
            return move(to: .locked(resume: .authenticated(held)))
        case .locked, .loggingOut:
            return []
        }
    }

    private mutating func storageUnlocked() -> [SessionAction] {
        switch phase {
        case .locked(let resume?): return move(to: resume)
        case .locked(nil): return [.restore]
        case .unauthenticated, .authorizing, .authenticated, .refreshing, .stepUpRequired, .loggingOut: return []
        }
    }

    private mutating func credentialsInvalidated() -> [SessionAction] {
        switch phase {
        case .loggingOut, .locked:
            // While locked nothing can be decrypted; unlocking reads the record again.
            return []
        case .unauthenticated:
            // Holding no grant, there is nothing to invalidate: a record this session cannot
            // open is kept, as at startup (E9), since it may be another process's, sealed with
            // another key source (a login that just moved the profile to one).
            return []
        case .authorizing, .authenticated, .refreshing, .stepUpRequired:
            return move(to: .unauthenticated) + [.wipeCredentials]
        }
    }

    /// Moves to `next`; publishes only when the observable state changes (T6).
    private mutating func move(to next: SessionPhase) -> [SessionAction] {
        let changed = next.state != phase.state
        phase = next
        return changed ? [.publish(next.state)] : []
    }
}
