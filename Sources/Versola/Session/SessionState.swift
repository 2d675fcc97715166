import VersolaHTTP
/// The seven observable states of a session (S1). No caller or platform adds one.
public enum SessionState: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// No grant.
    case unauthenticated
    /// A login (or step-up) is waiting for its browser leg.
    case authorizing
    /// A usable grant.
    case authenticated
    /// The grant is being renewed.
    case refreshing
    /// A resource asked for a stronger authentication (S5).
    case stepUpRequired
    /// The storage is locked; the grant is intact and returns once unlocked (S10).
    case locked
    /// The grant is being ended (S9).
    case loggingOut

    /// Whether the user is signed in during this state (S2): a grant is held during
    /// `authenticated` and its sub-states `refreshing`, `stepUpRequired`, `locked` and
    /// `loggingOut`.
    public var holdsGrant: Bool {
        switch self {
        case .authenticated, .refreshing, .stepUpRequired, .locked, .loggingOut: true
        case .unauthenticated, .authorizing: false
        }
    }

    public var description: String { rawValue }
}
