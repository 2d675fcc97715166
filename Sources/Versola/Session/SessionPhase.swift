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
    /// access token; another grant (rotated or replaced elsewhere) starts without one (S11),
    /// or with the access token stored with it (P13: a grant without a refresh token).
    func following(_ stored: Grant, token storedToken: HeldAccessToken? = nil) -> HeldGrant {
        if stored.refreshToken == grant.refreshToken && stored.idToken == grant.idToken
            && stored.dpopKey?.thumbprint == grant.dpopKey?.thumbprint
            && (storedToken == nil || storedToken?.value == token?.value)
        {
            return self
        }
        return HeldGrant(grant: stored, token: storedToken)
    }

    /// Whether `stored` is another grant than this one: another refresh token, or another
    /// stored access token (P13).
    func isReplaced(by stored: Grant) -> Bool {
        stored.refreshToken != grant.refreshToken || (stored.refreshToken == nil && stored.accessToken != grant.accessToken)
    }
}

/// What a profile's record holds, as the machine reads it.
enum StoredSession: Sendable, Hashable {
    /// Nothing stored.
    case empty
    /// A grant; `refreshing` while some process is spending its refresh token (the record's
    /// in-flight marker); with a pending request beside it (P3); with `token`, the access
    /// token stored for a grant without a refresh token (P13).
    case grant(Grant, refreshing: Bool, hasPendingRequest: Bool, token: HeldAccessToken? = nil)
    /// Only a pending request that can still complete: a browser request younger than 10
    /// minutes, a device request before its `expires_in` (P2, A14).
    case pendingRequest(PendingRequest)
    /// Only a pending request that expired (P2, A14).
    case expiredPendingRequest
    /// The key source is locked (S10).
    case locked
    /// The record does not decrypt or decode, or the key source failed (E9): why.
    case unreadable(VersolaError)
}
