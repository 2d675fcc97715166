/// Why a request sent through ``RetryingClient`` ended without an answer the operation can
/// use, once the client will not send it again.
///
/// This is the HTTP layer's own, small account of a failure. The engine turns it into its
/// public error hierarchy in one place (`VersolaError(_:)` in the `Versola` module): network
/// and server failures are worth trying again later, a misconfiguration is for a developer
/// or administrator, and a cancel ends the wait.
public enum HTTPFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing usable answered: name resolution, connection, TLS or a timeout (E8).
    case network(NetworkFailure)
    /// The server answered 408, 429, 5xx, a status the operation could not use, or an answer
    /// over the size limit; or the origin is closed by a `Retry-After` not yet over (E8, R8).
    case server(ServerFailure)
    /// Something only a developer or administrator can fix, in plain words: a redirect from an
    /// endpoint, plain http off loopback, an invalid URL, a certificate that failed
    /// verification, an unusable CA file, or a retry policy out of range.
    case misconfigured(String)
    /// The waiting task was cancelled.
    case cancelled

    /// A one-line account for logs. Holds no header, body or query value.
    public var description: String {
        switch self {
        case .network(let failure): "network(\(failure))"
        case .server(let failure): "server(\(failure))"
        case .misconfigured(let reason): "misconfigured(\(reason))"
        case .cancelled: "cancelled"
        }
    }
}

/// An error type that an ``HTTPFailure`` can become, so that ``RetryingClient`` can throw the
/// caller's own error type when the caller's request builder throws one too.
public protocol HTTPFailureRepresentable: Error {
    /// The error that stands for `failure`.
    init(_ failure: HTTPFailure)
}

extension HTTPFailure: HTTPFailureRepresentable {
    /// The failure itself.
    public init(_ failure: HTTPFailure) { self = failure }
}
