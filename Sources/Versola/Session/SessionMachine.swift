/// What happened to a session, as the state machine sees it.
public enum SessionEvent: Sendable, Hashable {
    /// Startup read the store (disk only, T5).
    case restored(RestoredSession)
    /// `login()` began (S4).
    case loginStarted
    /// `stepUp()` began (S5).
    case stepUpStarted
    /// The redirect validated and the code exchange succeeded (S4).
    case authorizationSucceeded
    /// The authorization failed or was cancelled (S4, E7).
    case authorizationFailed(VersolaError)
    /// A pending request expired before its redirect arrived (P2).
    case pendingExpired
    /// A resource answered `insufficient_user_authentication` (S5).
    case stepUpDemanded(StepUpChallenge)
    /// A refresh began: the access token expired, or a 401 that is neither step-up nor a nonce demand (S6).
    case refreshStarted
    /// The refresh succeeded (S6).
    case refreshSucceeded
    /// The refresh failed (S6, S7, T5).
    case refreshFailed(VersolaError)
    /// The access token expired and there is no refresh token (S8).
    case grantExpiredWithoutRefreshToken
    /// `logout()` began (S9).
    case logoutStarted
    /// The local wipe is done (S9).
    case logoutFinished
    /// The storage became locked (S10).
    case storageLocked
    /// The storage was unlocked (S10).
    case storageUnlocked
    /// The stored secrets could not be decrypted (E9): a sign-out.
    case credentialsInvalidated
}

/// What the stored session looked like at startup.
public enum RestoredSession: Sendable, Hashable {
    /// Nothing stored.
    case empty
    /// A refresh token (a pending request beside it is discarded, P3).
    case grant(hasPendingRequest: Bool)
    /// Only a pending request, younger than 10 minutes (P2).
    case pendingRequest
    /// Only a pending request, older than 10 minutes (P2).
    case expiredPendingRequest
    /// The key source is locked (S10).
    case locked
}

/// What the session actor must do after an event.
public enum SessionAction: Sendable, Hashable {
    /// Publish the new state on the stream (S3).
    case publish(SessionState)
    /// Wipe everything credential-shaped: refresh token, ID token, access token, claims,
    /// DPoP key, pending request (S7, S8, S9).
    case wipeCredentials
    /// Drop the pending authorization request (E7 user cancel, P2 expiry, P3).
    case discardPendingRequest
    /// Keep the pending request so the flow can resume (E7 system cancel).
    case keepPendingRequest
}

/// The session's transitions as a pure value (SPEC S1–S10): each event returns the actions
/// the owning actor performs, so every transition is tested without I/O.
///
/// Events that make no sense in the current state change nothing and return no action.
public struct SessionMachine: Sendable, Hashable {
    /// The current state.
    public private(set) var state: SessionState
    /// Where a login or step-up returns to when it fails (S4).
    private(set) var beforeAuthorization: SessionState
    /// Where an unlock returns to (S10).
    private(set) var beforeLock: SessionState

    /// A machine in `state` (a new session starts `unauthenticated` until restored).
    public init(state: SessionState = .unauthenticated) {
        self.state = state
        self.beforeAuthorization = state
        self.beforeLock = state
    }

    /// Applies `event` and returns what to do.
    public mutating func handle(_ event: SessionEvent) -> [SessionAction] {
        switch (state, event) {
        case (_, .restored(let restored)):
            return restore(restored)

        case (.unauthenticated, .loginStarted), (.authenticated, .loginStarted):
            beforeAuthorization = state
            return move(to: .authorizing)
        case (.stepUpRequired, .stepUpStarted), (.authenticated, .stepUpStarted):
            beforeAuthorization = state
            return move(to: .authorizing)
        case (.authorizing, .authorizationSucceeded):
            return move(to: .authenticated) + [.discardPendingRequest]
        case (.authorizing, .authorizationFailed(let error)):
            // S4: back to where the login started; an existing grant is never dropped.
            let pending: SessionAction = error == .recoverable(.systemCancelled) ? .keepPendingRequest : .discardPendingRequest
            return move(to: beforeAuthorization) + [pending]
        case (.authorizing, .pendingExpired):
            return move(to: beforeAuthorization) + [.discardPendingRequest]

        case (.authenticated, .stepUpDemanded):
            return move(to: .stepUpRequired)
        case (.authenticated, .refreshStarted), (.stepUpRequired, .refreshStarted):
            return move(to: .refreshing)
        case (.refreshing, .refreshSucceeded):
            return move(to: .authenticated)
        case (.refreshing, .refreshFailed(let error)):
            // S7: only the provider refusing the grant ends it; a network or server failure
            // keeps the session (T5), and so does anything the user retrying cannot fix.
            if case .reauthenticate = error { return move(to: .unauthenticated) + [.wipeCredentials] }
            return move(to: .authenticated)
        case (.authenticated, .grantExpiredWithoutRefreshToken), (.refreshing, .grantExpiredWithoutRefreshToken),
            (.stepUpRequired, .grantExpiredWithoutRefreshToken):
            return move(to: .unauthenticated) + [.wipeCredentials]

        case (.loggingOut, .logoutFinished):
            return move(to: .unauthenticated) + [.wipeCredentials]
        case (.locked, .logoutStarted):
            // S9: the local wipe happens even when the store is locked.
            return move(to: .loggingOut)
        case (_, .logoutStarted) where state != .loggingOut:
            return move(to: .loggingOut)

        case (.locked, .storageUnlocked):
            return move(to: beforeLock)
        case (.locked, _):
            return []
        case (_, .storageLocked) where state != .loggingOut:
            beforeLock = state == .refreshing ? .authenticated : state
            return move(to: .locked)

        case (_, .credentialsInvalidated) where state != .loggingOut:
            return move(to: .unauthenticated) + [.wipeCredentials]

        default:
            return []
        }
    }

    private mutating func restore(_ restored: RestoredSession) -> [SessionAction] {
        switch restored {
        case .empty: return move(to: .unauthenticated)
        case .grant(let hasPendingRequest):
            return move(to: .authenticated) + (hasPendingRequest ? [.discardPendingRequest] : [])
        case .pendingRequest:
            beforeAuthorization = .unauthenticated
            return move(to: .authorizing)
        case .expiredPendingRequest: return move(to: .unauthenticated) + [.discardPendingRequest]
        case .locked:
            beforeLock = .unauthenticated
            return move(to: .locked)
        }
    }

    private mutating func move(to next: SessionState) -> [SessionAction] {
        guard next != state else { return [] }
        state = next
        return [.publish(next)]
    }
}
