/// The one table that decides, for each operation kind and attempt outcome, whether the request
/// is repeated and, when it is not (or no longer) repeated, how the operation concludes.
///
/// The switches are exhaustive with no `default`, so a new kind or outcome is a compile error
/// until its cells are decided here. `RetryTableTests` walks every cell.
///
/// | outcome | read (R5) | refresh (R6) | codeExchange (R4) | application (R7) | probe (A16) |
/// |---|---|---|---|---|---|
/// | couldNotResolve, couldNotConnect | repeat | repeat | no | repeat | no |
/// | failedAfterSending, timedOut | repeat | no | no | no | no |
/// | tls, tooLarge | no | no | no | no | no |
/// | 408, 429, 503 | repeat | repeat | no | no (response) | no (response) |
/// | 500, 502, 504 | repeat | no | no | no (response) | no (response) |
/// | 501, 505, other 5xx, other 4xx, 3xx, 2xx | no | no | no | no (response) | no (response) |
///
/// A resolve or connect failure wrote nothing, so it is provably unprocessed (R6) and safe to
/// repeat even for application requests; a code exchange is still never repeated (R4).
public enum RetryTable {
    /// The decision for one cell of the table.
    public static func decision(for kind: OperationKind, after outcome: RequestOutcome) -> RetryDecision {
        RetryDecision(repeats: repeats(kind, outcome), otherwise: conclusion(kind, outcome))
    }

    private static func repeats(_ kind: OperationKind, _ outcome: RequestOutcome) -> Bool {
        switch kind {
        case .read:
            switch outcome {
            case .couldNotResolve, .couldNotConnect, .failedAfterSending, .timedOut,
                .status408, .status429, .status500, .status502, .status503, .status504:
                true
            case .tls, .tooLarge, .status501, .status505, .otherServerError, .otherClientError, .redirect,
                .success, .unexpectedStatus:
                false
            }
        case .refresh:
            provablyUnprocessed(outcome)
        case .codeExchange, .probe:
            false
        case .application:
            switch outcome {
            case .couldNotResolve, .couldNotConnect:
                true
            case .failedAfterSending, .timedOut, .tls, .tooLarge, .status408, .status429, .status500, .status501,
                .status502, .status503, .status504, .status505, .otherServerError, .otherClientError, .redirect,
                .success, .unexpectedStatus:
                false
            }
        }
    }

    /// R6, the one place it is written: whether an attempt that ended with `outcome` provably
    /// never reached the provider's processing (nothing was sent, or a 408, 429 or 503). Only
    /// such a refresh is repeated.
    package static func provablyUnprocessed(_ outcome: RequestOutcome) -> Bool {
        switch outcome {
        case .couldNotResolve, .couldNotConnect, .status408, .status429, .status503:
            true
        case .failedAfterSending, .timedOut, .tls, .tooLarge, .status500, .status501, .status502, .status504,
            .status505, .otherServerError, .otherClientError, .redirect, .success, .unexpectedStatus:
            false
        }
    }

    /// R6 for a failure that ended an operation: a network failure that provably wrote no byte of
    /// the request (whatever its kind), or a status ``provablyUnprocessed(_:)-(RequestOutcome)`` names.
    /// A refresh failing so left its refresh token unspent, so its in-flight note can go.
    package static func provablyUnprocessed(_ failure: HTTPFailure) -> Bool {
        switch failure {
        case .network(let network): !network.requestBytesWritten
        case .server(let server): provablyUnprocessed(RequestOutcome(status: server.status))
        case .misconfigured, .cancelled: false
        }
    }

    private static func conclusion(_ kind: OperationKind, _ outcome: RequestOutcome) -> RetryConclusion {
        switch outcome {
        case .couldNotResolve, .couldNotConnect, .failedAfterSending, .timedOut, .tls:
            return .networkFailure
        case .tooLarge:
            return .serverFailure
        case .success, .otherClientError:
            return .response
        case .redirect:
            return kind.answersEveryStatus ? .response : .redirectRefused
        case .status408, .status429, .status500, .status501, .status502, .status503, .status504, .status505,
            .otherServerError, .unexpectedStatus:
            return kind.answersEveryStatus ? .response : .serverFailure
        }
    }
}

/// One cell of the ``RetryTable``.
public struct RetryDecision: Sendable, Hashable {
    /// Whether the request is sent again (when attempts and budget allow).
    public var repeats: Bool
    /// How the operation concludes when the request is not sent again.
    public var otherwise: RetryConclusion

    /// Creates a cell.
    public init(repeats: Bool, otherwise: RetryConclusion) {
        self.repeats = repeats
        self.otherwise = otherwise
    }
}

/// How a request concludes when it is not repeated.
public enum RetryConclusion: String, Sendable, Hashable, CaseIterable {
    /// The answer is returned to the caller (2xx, 4xx other than 408/429; every status for
    /// application requests).
    case response
    /// ``HTTPFailure/server(_:)``: a 408, 429, 5xx, an unusable status, or an oversize answer.
    case serverFailure
    /// ``HTTPFailure/network(_:)``: nothing usable answered.
    case networkFailure
    /// ``HTTPFailure/misconfigured(_:)``: an endpoint answered with a redirect (R4).
    case redirectRefused
}

extension OperationKind {
    /// Whether every status is the request's answer (an application's request, R7; a probe, A16).
    var answersEveryStatus: Bool { self == .application || self == .probe }
}
