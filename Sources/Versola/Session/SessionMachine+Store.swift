import VersolaHTTP

extension SessionMachine {
    // MARK: Reading the store

    /// Startup: the record decides, whatever the state was (T5, P2, P3, S10).
    mutating func restored(_ stored: StoredSession) -> SessionOutcome {
        noteRead(stored)
        switch stored {
        case .empty, .unreadable: return move(to: .unauthenticated)
        case .grant(let grant, _, let hasPendingRequest, let token):
            return move(to: .authenticated(HeldGrant(grant: grant, token: token))) + (hasPendingRequest ? [.discardPendingRequest] : [])
        case .pendingRequest(let pending):
            return move(to: .authorizing(Authorizing(pending: pending, live: false, before: .unauthenticated)))
        case .expiredPendingRequest: return move(to: .unauthenticated) + [.discardPendingRequest]
        case .locked: return move(to: .locked(resume: nil))
        }
    }

    /// Another process changed the record (S11): follow it. An access token held from an
    /// older record is void once the grant on disk is another one. T2: while this process's
    /// refresh is in flight it holds the profile lock, so a record read then is its own
    /// writing: the grant follows it and the state stays `refreshing`, which that refresh ends.
    mutating func storeChanged(_ stored: StoredSession) -> SessionOutcome {
        // P10: the record held for a later write is newer than the one it replaces on disk.
        if heldBackOutranks(stored) { return .accepted() }
        noteRead(stored)
        if case .unreadable(let problem) = stored {
            // Only a record that no longer decrypts ends the session (S13). A key source or file
            // that cannot be used now (no session bus, a permission) leaves the state as it is;
            // the reason is the next operation's error.
            return problem == .reauthenticate(.credentialsInvalidated) ? credentialsInvalidated() : .accepted()
        }
        switch phase {
        case .unauthenticated:
            switch stored {
            case .empty, .unreadable, .expiredPendingRequest, .locked: return .accepted()
            case .grant(let grant, let refreshing, _, let token):
                let held = HeldGrant(grant: grant, token: token)
                return move(to: refreshing ? .refreshing(held, nil) : .authenticated(held))
            case .pendingRequest(let pending):
                return move(to: .authorizing(Authorizing(pending: pending, live: false, before: .unauthenticated)))
            }
        case .authorizing(let authorizing):
            switch stored {
            case .grant(let grant, _, false, let token) where authorizing.live || authorizing.before.heldGrant?.isReplaced(by: grant) ?? true:
                // The pending request was answered elsewhere (`handle-redirect`, L2): this login is done.
                if authorizing.live { loginCompletedElsewhere = true }
                return move(to: .authenticated(HeldGrant(grant: grant, token: token))) + (authorizing.live ? [.endLiveLogin] : [])
            case .grant, .locked, .expiredPendingRequest: return .accepted()
            case .pendingRequest(let pending):
                var updated = authorizing
                updated.pending = pending
                phase = .authorizing(updated)
                return .accepted()
            case .empty, .unreadable:
                // A live login keeps waiting (its own listener finishes it); a restored one is gone.
                return authorizing.live ? .accepted() : move(to: .unauthenticated)
            }
        case .authenticated(let held), .stepUpRequired(let held, _):
            switch stored {
            case .grant(let grant, let refreshing, _, let token):
                let next = held.following(grant, token: token)
                if refreshing { return move(to: .refreshing(next, nil)) }
                if case .stepUpRequired(_, let challenge) = phase, next == held { return move(to: .stepUpRequired(next, challenge)) }
                return move(to: .authenticated(next))
            case .empty, .unreadable: return move(to: .unauthenticated)
            case .pendingRequest, .expiredPendingRequest, .locked: return .accepted()
            }
        case .refreshing(let held, let inFlight):
            switch stored {
            case .grant(let grant, let marked, _, let token):
                let next = held.following(grant, token: token)
                return move(to: marked || inFlight != nil ? .refreshing(next, inFlight) : .authenticated(next))
            case .empty, .unreadable: return move(to: .unauthenticated)
            case .pendingRequest, .expiredPendingRequest, .locked: return .accepted()
            }
        case .locked, .loggingOut:
            // Locked: the record cannot be read now; unlocking reads it. Logging out: the wipe decides.
            return .accepted()
        }
    }

    /// E9: what a read of the store says about its readability (a lock says nothing).
    private mutating func noteRead(_ stored: StoredSession) {
        switch stored {
        case .unreadable(let problem): readProblem = problem
        case .locked: break
        case .empty, .grant, .pendingRequest, .expiredPendingRequest: readProblem = nil
        }
    }
}
