import Versola
import VersolaHTTP

/// The exit statuses of `versola`, one per error category (scripts branch on them).
public enum ExitStatus: Int32, Sendable, Hashable, CaseIterable {
    /// Success.
    case success = 0
    /// `status`: the profile is signed out (like `gh auth status`).
    case signedOut = 1
    /// The command line could not be understood.
    case usage = 2
    /// `recoverable`: try again later; nothing was lost.
    case recoverable = 3
    /// `reauthenticate`: sign in again.
    case reauthenticate = 4
    /// `stepUp`: the resource wants a stronger sign-in.
    case stepUp = 5
    /// `configuration`: a developer or administrator must fix something.
    case configuration = 6
    /// `request --fail`: the answer was HTTP 400 or above (curl's 22).
    case httpFailure = 22

    /// The status for an engine error: its category decides (E1–E4).
    public init(_ error: VersolaError) {
        switch error {
        case .recoverable: self = .recoverable
        case .reauthenticate: self = .reauthenticate
        case .stepUp: self = .stepUp
        case .configuration: self = .configuration
        }
    }
}
