import VersolaHTTP
import Foundation

/// A session state with the data it holds (the machine's view; ``SessionState`` is what
/// observers see).
indirect enum SessionPhase: Sendable, Hashable {
    case unauthenticated
    case authorizing(Authorizing)
    case authenticated(HeldGrant)
    case refreshing(HeldGrant)
    case stepUpRequired(HeldGrant, StepUpChallenge)
    /// `resume` is where unlocking returns; nil when the store was locked before anything was read.
    case locked(resume: SessionPhase?)
    case loggingOut(HeldGrant?)

    /// The observable state.
    var state: SessionState {
        switch self {
        case .unauthenticated: .unauthenticated
        case .authorizing: .authorizing
        case .authenticated: .authenticated
        case .refreshing: .refreshing
        case .stepUpRequired: .stepUpRequired
        case .locked: .locked
        case .loggingOut: .loggingOut
        }
    }

    /// The grant this state holds (S2): during a login over a live session, the live one.
    var heldGrant: HeldGrant? {
        switch self {
        case .unauthenticated: nil
        case .authorizing(let authorizing): authorizing.before.heldGrant
        case .authenticated(let held), .refreshing(let held), .stepUpRequired(let held, _): held
        case .locked(let resume): resume?.heldGrant
        case .loggingOut(let held): held
        }
    }
}

/// A login or step-up waiting for its redirect, or a device login waiting for its approval.
struct Authorizing: Sendable, Hashable {
    /// The request on disk (P1), once written; nil just after the login began.
    var pending: PendingRequest?
    /// Whether this process runs the login (its listener waits for the redirect, or it polls
    /// for the device approval); false for a request restored from disk or begun by another
    /// process.
    var live: Bool
    /// Where a failure returns to (S4).
    var before: SessionPhase
}

/// A grant held in memory, with its access token when one is known (P4: none after a
/// restore from disk, nor once the record moved on to another grant).
struct HeldGrant: Sendable, Hashable {
    var grant: Grant
    var token: HeldAccessToken?

    /// Holds `grant`, with `token` as its access token when known.
    init(grant: Grant, token: HeldAccessToken? = nil) {
        self.grant = grant
        self.token = token
    }

    /// This grant after the record on disk changed to `stored`: the same grant keeps its
    /// access token; another grant (rotated or replaced elsewhere) starts without one (S11).
    func following(_ stored: Grant) -> HeldGrant {
        if stored.refreshToken == grant.refreshToken && stored.idToken == grant.idToken
            && stored.dpopKey?.thumbprint == grant.dpopKey?.thumbprint
        {
            return self
        }
        return HeldGrant(grant: stored)
    }
}

/// What a profile's record holds, as the machine reads it.
enum StoredSession: Sendable, Hashable {
    /// Nothing stored.
    case empty
    /// A grant; `refreshing` while some process is spending its refresh token (the record's
    /// in-flight marker); with a pending request beside it (P3).
    case grant(Grant, refreshing: Bool, hasPendingRequest: Bool)
    /// Only a pending request that can still complete: a browser request younger than 10
    /// minutes, a device request before its `expires_in` (P2, A14).
    case pendingRequest(PendingRequest)
    /// Only a pending request that expired (P2, A14).
    case expiredPendingRequest
    /// The key source is locked (S10).
    case locked
    /// The record does not decrypt or decode (E9).
    case unreadable
}

/// What happened to a session, as the state machine sees it.
enum SessionEvent: Sendable, Hashable {
    /// Startup read the store (disk only, T5).
    case restored(StoredSession)
    /// Another process changed the stored record (S11).
    case storeChanged(StoredSession)
    /// `login()` began (S4).
    case loginStarted
    /// `stepUp()` began (S5).
    case stepUpStarted
    /// `cancelLogin()` was called (E7, S14).
    case loginCancelled
    /// `loginWithDevice()` began (A14): it resumes a device request restored from disk (P2)
    /// when there is one, else asks for a new code.
    case deviceLoginStarted
    /// `resumeDeviceLogin()` began (A14, P2): only a device request restored from disk is
    /// taken up.
    case deviceLoginResumed
    /// The pending request was written (P1), or rewritten (a device request's new interval).
    case pendingStored(PendingRequest)
    /// The redirect validated and the code exchange succeeded (S4).
    case authorizationSucceeded(HeldGrant)
    /// The authorization failed or was cancelled (S4, E7).
    case authorizationFailed(VersolaError)
    /// A pending request expired before its redirect arrived (P2).
    case pendingExpired
    /// A resource answered `insufficient_user_authentication` (S5).
    case stepUpDemanded(StepUpChallenge)
    /// A refresh began (S6).
    case refreshStarted
    /// The refresh succeeded (S6).
    case refreshSucceeded(HeldGrant)
    /// The refresh failed (S6, S7, T5); `keptRefreshToken` is a rotated token that arrived
    /// before the failure (P10).
    case refreshFailed(VersolaError, keptRefreshToken: String?)
    /// The access token to serve (checked again after a refresh, T3, or handed over by the
    /// process that logged in), with its expiry when known.
    case accessTokenHeld(HeldAccessToken, expiresAt: Date?)
    /// The access token expired and there is no refresh token (S8).
    case grantExpiredWithoutRefreshToken
    /// `logout()` began (S9).
    case logoutStarted
    /// The local wipe is done (S9, S12).
    case logoutFinished
    /// The storage became locked (S10, S13).
    case storageLocked
    /// The storage was unlocked (S10, S13).
    case storageUnlocked
    /// The stored secrets could not be decrypted (E9, S13): a sign-out.
    case credentialsInvalidated
}

/// What the session actor must do after an event.
enum SessionAction: Sendable, Hashable {
    /// Publish the new state on the stream (S3, T6).
    case publish(SessionState)
    /// Wipe everything credential-shaped: refresh token, ID token, access token, claims,
    /// DPoP key, pending request (S7, S8).
    case wipeCredentials
    /// Drop the pending authorization request (E7 user cancel, P2 expiry, P3).
    case discardPendingRequest
    /// Keep the pending request so the flow can resume (E7 system cancel).
    case keepPendingRequest
    /// Read the store again (unlocked after a lock at startup).
    case restore
    /// Revoke this grant's refresh token (a refresh that finished after logout, S12).
    case revoke(Grant)
    /// Stop this process's browser leg or device polling: another process completed the login (L2).
    case endLiveLogin
    /// Stop this process's browser leg or device polling on the person's behalf: the login
    /// then ends `userCancelled` (E7).
    case cancelLiveLogin
    /// Ask the provider for a new device code (A14): carried out by the login that applied the event.
    case requestDeviceAuthorization
    /// Go on polling for this restored device request (P2, A14): carried out by the login
    /// that applied the event.
    case pollDeviceAuthorization(PendingDeviceAuthorization)
}
