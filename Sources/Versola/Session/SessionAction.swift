import VersolaHTTP
import Foundation

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
    /// Try writing the held-back record again, with backoff, until it is written or dropped (P10).
    case retryHeldBack
    /// Stop trying: the held-back record was written or dropped.
    case stopRetryingHeldBack
    /// A step of the refresh in flight (``RefreshSequence``), under the profile lock; one that
    /// answers or fails ends its list, and what came of it goes back to the sequence.
    case refresh(RefreshAction)
    /// This process's refresh is over: the operation that runs it gets `result` (and a
    /// rotated token that arrived before a failure, P10) and applies it as `refreshSucceeded`
    /// or `refreshFailed` once it has let go of the profile lock.
    case refreshEnded(Result<Grant, VersolaError>, keptRefreshToken: String?)
    /// Read the store again (unlocked after a lock at startup).
    case restore
    /// Revoke this grant's refresh token (A9; a refresh that finished after logout, S12).
    case revoke(Grant)
    /// Take the profile lock, read the newest record and wipe it, whatever it holds (S9, S12);
    /// then hand the machine `logoutFinished` with the grant read and `inMemory`.
    case wipeForLogout(inMemory: Grant?, endSession: Bool)
    /// Open the provider's end-session page (A15): carried out by the `logout()` that applied
    /// the event, once the local sign-out is done.
    case openEndSession(idTokenHint: String?)
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
