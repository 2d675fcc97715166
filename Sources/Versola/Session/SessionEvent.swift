import VersolaHTTP
import Foundation

/// What happened to a session, as the state machine sees it.
enum SessionEvent: Sendable, Hashable {
    /// Startup read the store (disk only, T5).
    case restored(StoredSession)
    /// Another process changed the stored record (S11); `.unreadable` with
    /// `credentialsInvalidated` when the stored secrets stopped decrypting (E9, S13): a sign-out.
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
    /// This process began a refresh (S6): `sequence` is it, at its start; the machine carries
    /// it from now on.
    case refreshStarted(RefreshSequence)
    /// What came of a step of this process's refresh (T2, P7, P10, R6), for the sequence the
    /// machine carries.
    case refresh(RefreshEvent)
    /// The refresh succeeded (S6): this process's, once its sequence is over, or another
    /// process's renewal handed over (P10).
    case refreshSucceeded(HeldGrant)
    /// The refresh failed (S6, S7, T5); `keptRefreshToken` is a rotated token that arrived
    /// before the failure (P10).
    case refreshFailed(VersolaError, keptRefreshToken: String?)
    /// The access token to serve, with its expiry when known; `minted`, for a brand-new token
    /// after a refresh the deadlines disagreed on, is when it is checked against its `exp` (T3:
    /// still expired by `exp` means the wall clock is fast).
    case accessTokenHeld(HeldAccessToken, expiresAt: Date?, minted: ClockReading? = nil)
    /// A login finished by another process hands over its access token (the command gives it
    /// to the agent): taken for the grant held, when its ID token is `idToken`, and checked
    /// against its `exp` as a brand-new token (T3).
    case accessTokenOffered(String, expiresAt: Date?, idToken: String?, at: ClockReading)
    /// The access token expired and there is no refresh token (S8).
    case grantExpiredWithoutRefreshToken
    /// `logout()` began (S9); with `endSession`, the provider's end-session page is opened
    /// afterwards (A15). A renewed record the machine holds back (P10) is the grant in memory
    /// the logout revokes: the machine knows it, so the event does not carry it.
    case logoutStarted(endSession: Bool)
    /// The local wipe is done (S9, S12): `newest` is the grant the record held just before it
    /// was wiped (nil when none, or another client's), `inMemory` the one this session held.
    case logoutFinished(newest: Grant?, inMemory: Grant?, endSession: Bool)
    /// The store refused a renewed record (P10), which replaces the session whose refresh
    /// token is `replacing`: it is held and written again later.
    case renewalRefused(SessionRecord, replacing: String?)
    /// The held-back record reached the store, or a newer record replaced it there (P10).
    case heldBackWritten
    /// Another process changed the session before the held-back record could be written: it
    /// is dropped, and its grant revoked.
    case heldBackSuperseded
    /// The storage became locked (S10, S13).
    case storageLocked
    /// The storage was unlocked (S10, S13).
    case storageUnlocked
}
