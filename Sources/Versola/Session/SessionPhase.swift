import VersolaHTTP
import Foundation

/// A session state with the data it holds (the machine's view; ``SessionState`` is what
/// observers see).
indirect enum SessionPhase: Sendable, Hashable {
    case unauthenticated
    case authorizing(Authorizing)
    case authenticated(HeldGrant)
    /// A refresh of the grant held: this process's own, with its sequence (T2, P7, P10, R6), or,
    /// with none, another process's shown from the record's in-flight marker (or this
    /// process's, over and waiting for its result to be applied).
    case refreshing(HeldGrant, RefreshSequence?)
    case stepUpRequired(HeldGrant, StepUpChallenge)
    /// `resume` is where unlocking returns; nil when the store was locked before anything was
    /// read. A lock that interrupts this process's refresh keeps it there, as `refreshing`.
    case locked(resume: SessionPhase?)
    /// The grant held when the logout began, and this process's refresh it interrupted, which
    /// still stores its rotated token before the logout's wipe reads the record (S12, P10).
    case loggingOut(HeldGrant?, RefreshSequence?)

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
        case .authenticated(let held), .refreshing(let held, _), .stepUpRequired(let held, _): held
        case .locked(let resume): resume?.heldGrant
        case .loggingOut(let held, _): held
        }
    }

    /// This process's refresh in flight, in the state that carries it: `refreshing`, a logout
    /// that began during it, or a lock that interrupted it (in the state unlocking returns to).
    var refreshInFlight: RefreshSequence? {
        switch self {
        case .refreshing(_, let sequence), .loggingOut(_, let sequence), .locked(resume: .refreshing(_, let sequence)?): sequence
        case .unauthenticated, .authorizing, .authenticated, .stepUpRequired, .locked: nil
        }
    }

    /// Puts `sequence` where this state carries this process's refresh; nil once the refresh
    /// is over: `refreshing` then waits for its result to be applied, and a lock returns to
    /// `authenticated` (the refresh it interrupted has ended). A state that carries none is
    /// left as it is.
    mutating func carry(_ sequence: RefreshSequence?) {
        switch self {
        case .refreshing(let held, _): self = .refreshing(held, sequence)
        case .loggingOut(let held, _): self = .loggingOut(held, sequence)
        case .locked(resume: .refreshing(let held, _)?):
            self = .locked(resume: sequence.map { .refreshing(held, $0) } ?? .authenticated(held))
        case .unauthenticated, .authorizing, .authenticated, .stepUpRequired, .locked: break
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
