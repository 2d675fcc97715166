/// A request to which nothing usable answered (E8), with how far it got.
///
/// `kind` is exact enough for the refresh rule R6, which may repeat a request only when
/// provably nothing of it was written.
public struct NetworkFailure: Sendable, Hashable, CustomStringConvertible {
    /// How the request failed.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The host name did not resolve. Nothing was sent.
        case couldNotResolve
        /// No connection could be made (refused, unreachable). Nothing was sent.
        case couldNotConnect
        /// The connection broke after some of the request was written (reset, closed
        /// without an answer, a truncated answer). The server may have processed it.
        case failedAfterSending
        /// The connect or total timeout passed.
        case timedOut
        /// The TLS handshake or certificate verification failed.
        case tls
    }

    /// How the request failed.
    public var kind: Kind
    /// Whether any byte of the request was handed to the connection.
    public var requestBytesWritten: Bool
    /// The origin (`scheme://host:port`) that did not answer.
    public var origin: String

    /// Creates a failure record.
    public init(kind: Kind, requestBytesWritten: Bool, origin: String) {
        self.kind = kind
        self.requestBytesWritten = requestBytesWritten
        self.origin = origin
    }

    public var description: String {
        "\(kind.rawValue) \(origin)\(requestBytesWritten ? " after sending" : "")"
    }
}
