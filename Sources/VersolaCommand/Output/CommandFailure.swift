import Versola
import VersolaHTTP

/// Why a command did not succeed: a bad command line or an engine error.
public enum CommandFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The command line was not understood (exit 2).
    case usage(UsageError)
    /// The engine (or the command acting for it) failed (exit 3–6).
    case versola(VersolaError)

    /// The exit status.
    public var exitStatus: ExitStatus {
        switch self {
        case .usage: .usage
        case .versola(let error): ExitStatus(error)
        }
    }

    public var description: String {
        switch self {
        case .usage(let error): "usage: \(error.message)"
        case .versola(let error): error.description
        }
    }
}
