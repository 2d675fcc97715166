import VersolaHTTP

/// What one event came to: whether the machine took it (and why not, when it did not), and
/// the actions the session actor carries out, in order. A refused event changes nothing and
/// returns no action.
struct SessionOutcome: Sendable, Hashable {
    /// Taken, or refused with the reason.
    var result: SessionResult
    /// What to do, in order.
    var actions: [SessionAction]

    /// Whether the machine took the event.
    var accepted: Bool { result == .accepted }

    /// The event taken, with `actions` to carry out.
    static func accepted(_ actions: [SessionAction] = []) -> SessionOutcome {
        SessionOutcome(result: .accepted, actions: actions)
    }

    /// The event refused: nothing changes, nothing is done.
    static func refused(_ refusal: SessionRefusal) -> SessionOutcome {
        SessionOutcome(result: .refused(refusal), actions: [])
    }

    /// This outcome with `more` actions after its own.
    static func + (outcome: SessionOutcome, more: [SessionAction]) -> SessionOutcome {
        SessionOutcome(result: outcome.result, actions: outcome.actions + more)
    }
}

/// Whether the machine took an event.
enum SessionResult: Sendable, Hashable {
    case accepted
    case refused(SessionRefusal)
}

/// Why the machine refused an event.
enum SessionRefusal: Sendable, Hashable {
    /// A login, step-up or device login cannot start in this state (S4, S5, A14).
    case cannotStartLogin(SessionState)
    /// A device login was to be resumed, but no device request restored from disk waits
    /// (A14, P2).
    case noDeviceLoginToResume
    /// The login that failed here was completed by another process meanwhile (L2): it ended
    /// well, and the session already holds its grant.
    case loginCompletedElsewhere
    /// The event does not concern this state (a late or stray report, or an operation that
    /// has nothing to act on).
    case notApplicable(SessionState)

    /// The error a login, step-up or device login that was refused throws.
    var loginError: VersolaError {
        switch self {
        case .noDeviceLoginToResume: .recoverable(.pendingRequestExpired)
        case .cannotStartLogin(let state), .notApplicable(let state):
            .configuration(.invalidConfiguration("cannot start a login while \(state)"))
        case .loginCompletedElsewhere: .configuration(.invalidConfiguration("this login was completed by another process"))
        }
    }
}
