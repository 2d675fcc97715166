import VersolaHTTP

extension SessionMachine {
    // MARK: Refresh (S6, S7, T2, P7, P10, R6)

    /// This process starts a refresh (S6): its sequence becomes data of the state that stands
    /// for it, so that every step goes through the machine. From `authenticated` or
    /// `stepUpRequired` the session shows `refreshing`; over another process's refresh already
    /// shown it takes that state over; a logout under way carries it (S12: the refresh still
    /// stores a rotated token before the logout's wipe reads and revokes it). Refused where no
    /// grant is held to renew, while locked (S10: nothing can be read or written; the refresh
    /// fails `unlockRequired`, as its read of the store would), and while a refresh of this
    /// process's is in flight (T2: one at a time). A lock that comes during the refresh keeps
    /// it (``SessionPhase/locked(resume:)``).
    mutating func refreshStarted(_ sequence: RefreshSequence) -> SessionOutcome {
        switch phase {
        case .authenticated(let held), .stepUpRequired(let held, _): return move(to: .refreshing(held, sequence))
        case .refreshing(let held, nil):
            // Another process's refresh was being shown; this one now runs its own.
            phase = .refreshing(held, sequence)
            return .accepted()
        case .loggingOut(let held, nil):
            phase = .loggingOut(held, sequence)
            return .accepted()
        case .unauthenticated, .authorizing, .refreshing, .loggingOut, .locked:
            return ignored()
        }
    }

    /// What came of a step of this process's refresh: the sequence the state carries takes it
    /// and returns its next steps, which the session carries out as ``SessionAction/refresh(_:)``.
    /// The record read comes with the one the machine holds back (P10), when it holds one.
    /// Once the sequence is over, no state carries it any more, and its result goes back to the
    /// refresh with ``SessionAction/refreshEnded(_:keptRefreshToken:)``: the refresh applies it
    /// (`refreshSucceeded`, `refreshFailed`) after letting go of the profile lock, whatever the
    /// state has become meanwhile. Refused when no refresh of this process's is in flight: none
    /// began, or the session it renewed ended under it (S7, S13: a wipe, a record that stopped
    /// decrypting), so there is nothing left to store its token into.
    mutating func refreshEvent(_ event: RefreshEvent) -> SessionOutcome {
        guard var sequence = phase.refreshInFlight else { return ignored() }
        var event = event
        if case .recordRead(let stored, nil, let now) = event, let unsaved = heldBack?.record {
            // T2, P10: a record held back is newer than the stored one; its token is the one spent.
            event = .recordRead(stored: stored, unsaved: unsaved, now: now)
        }
        let steps = sequence.handle(event).map(SessionAction.refresh)
        guard let (result, kept) = sequence.result else {
            phase.carry(sequence)
            return .accepted(steps)
        }
        phase.carry(nil)
        return .accepted(steps + [.refreshEnded(result, keptRefreshToken: kept)])
    }

    /// A refresh succeeded: this process's, whose sequence is over, or another process's
    /// renewal handed over (P10). Handed over while this process's own refresh still runs, the
    /// grant is taken and the state stays `refreshing`: that refresh ends it.
    mutating func refreshSucceeded(_ fresh: HeldGrant) -> SessionOutcome {
        switch phase {
        case .refreshing(_, let inFlight?):
            phase = .refreshing(fresh, inFlight)
            return .accepted()
        case .refreshing, .authenticated:
            return move(to: .authenticated(fresh))
        case .loggingOut, .unauthenticated:
            // S12: a refresh that finishes after logout began is discarded, its new token revoked.
            return .accepted([.revoke(fresh.grant)])
        case .authorizing, .stepUpRequired, .locked:
            return ignored()
        }
    }

    /// This process's refresh failed (its sequence is over). While a sequence is still in
    /// flight, the failure cannot be its own: it is not taken.
    mutating func refreshFailed(_ error: VersolaError, keeping keptRefreshToken: String?) -> SessionOutcome {
        switch phase {
        case .refreshing(var held, nil), .authenticated(var held):
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
        case .unauthenticated, .authorizing, .refreshing, .stepUpRequired, .locked, .loggingOut:
            return ignored()
        }
    }
}
