/// Why a transport produced no usable answer, exact enough for the retry rules
/// (R4–R6 need to know whether any request byte was written).
///
/// Holds no URL path, header or body: only origins and limits.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The host name did not resolve. Nothing was sent.
    case couldNotResolve(origin: Origin)
    /// No connection could be made (refused, unreachable). Nothing was written.
    case couldNotConnect(origin: Origin)
    /// The exchange broke after some of the request was written: a reset, a connection closed
    /// without an answer, a dropped answer or a truncated header block. The server may have
    /// processed the request.
    case failedAfterSending(origin: Origin)
    /// The connect or total timeout passed; `requestBytesWritten` says whether any of the
    /// request had been handed to the connection.
    case timedOut(origin: Origin, requestBytesWritten: Bool)
    /// The TLS handshake failed, or the connection broke during it.
    case tls(origin: Origin)
    /// The provider's certificate failed verification: a configuration error, since it never
    /// fixes itself (E14). Nothing was sent.
    case certificateRejected(origin: Origin, check: CertificateCheck)
    /// The configured CA file could not be used (missing, unreadable, not PEM).
    case caFileUnusable(path: String)
    /// The response body went over ``TransportOptions/maxResponseBodyBytes``; `status` is the
    /// answer's status code.
    case responseTooLarge(origin: Origin, status: Int, limit: Int)
    /// The response header block went over ``TransportOptions/maxHeaderBytes``.
    case headerBlockTooLarge(origin: Origin, limit: Int)
    /// Plain `http` to a host that is not loopback was refused before any connection.
    case insecureSchemeRefused(origin: Origin)
    /// The URL is not an absolute `http`/`https` URL, or a header field holds a line break.
    case invalidRequest(reason: String)
    /// The task was cancelled while the request was in flight; it may have been processed.
    case cancelled
    /// The HTTP library (libcurl, loaded when the first request needs it) could not be loaded:
    /// `reason` is the loader's account. Nothing was sent.
    case libraryUnavailable(library: String, reason: String)

    /// The origin concerned, when there is one.
    public var origin: Origin? {
        switch self {
        case .couldNotResolve(let origin), .couldNotConnect(let origin), .failedAfterSending(let origin),
            .timedOut(let origin, _), .tls(let origin), .responseTooLarge(let origin, _, _),
            .headerBlockTooLarge(let origin, _), .insecureSchemeRefused(let origin), .certificateRejected(let origin, _):
            origin
        case .invalidRequest, .cancelled, .caFileUnusable, .libraryUnavailable:
            nil
        }
    }

    /// Whether any byte of the request may have been written. False only when provably nothing was.
    public var requestBytesWritten: Bool {
        switch self {
        case .couldNotResolve, .couldNotConnect, .insecureSchemeRefused, .invalidRequest, .certificateRejected,
            .caFileUnusable, .libraryUnavailable:
            false
        case .timedOut(_, let written): written
        case .failedAfterSending, .tls, .responseTooLarge, .headerBlockTooLarge, .cancelled: true
        }
    }

    /// The network failure (E8) this is, or nil when it is not one (an oversize answer is a
    /// server failure, a refused URL a configuration error, a cancel a system cancel).
    public var networkFailure: NetworkFailure? {
        guard let kind = networkKind else { return nil }
        return NetworkFailure(kind: kind, requestBytesWritten: requestBytesWritten, origin: origin?.description ?? "")
    }

    private var networkKind: NetworkFailure.Kind? {
        switch self {
        case .couldNotResolve: .couldNotResolve
        case .couldNotConnect: .couldNotConnect
        case .failedAfterSending: .failedAfterSending
        case .timedOut: .timedOut
        case .tls: .tls
        case .responseTooLarge, .headerBlockTooLarge, .insecureSchemeRefused, .invalidRequest, .cancelled,
            .certificateRejected, .caFileUnusable, .libraryUnavailable:
            nil
        }
    }

    /// The failure this becomes once the engine will not repeat the request.
    ///
    /// Network failures → `.network`; an oversize answer → `.server` with the answer's status
    /// (0 when the header block itself was too large); a refused or invalid URL →
    /// `.misconfigured`; a certificate that failed verification or an unusable CA file →
    /// `.misconfigured` naming the check and what fixes it (E14); a library that could not be loaded →
    /// `.misconfigured` naming it and its package; a cancel → `.cancelled`.
    /// - Parameters:
    ///   - failedRequests: the operation's failed requests so far, this one included.
    ///   - elapsed: the operation's elapsed time.
    public func httpFailure(failedRequests: Int, elapsed: Duration) -> HTTPFailure {
        switch self {
        case .couldNotResolve(let origin), .couldNotConnect(let origin), .failedAfterSending(let origin),
            .timedOut(let origin, _), .tls(let origin):
            let kind = networkKind ?? .failedAfterSending
            return .network(NetworkFailure(kind: kind, requestBytesWritten: requestBytesWritten, origin: origin.description))
        case .responseTooLarge(_, let status, _):
            return .server(ServerFailure(status: status, failedRequests: failedRequests, elapsed: elapsed))
        case .headerBlockTooLarge:
            return .server(ServerFailure(status: 0, failedRequests: failedRequests, elapsed: elapsed))
        case .insecureSchemeRefused(let origin):
            return .misconfigured("plain http is allowed only to loopback, not \(origin)")
        case .invalidRequest(let reason):
            return .misconfigured(reason)
        case .certificateRejected(let origin, let check):
            return .misconfigured("the TLS certificate of \(origin) was refused: \(check); \(check.advice)")
        case .caFileUnusable(let path):
            return .misconfigured(TransportOptions.unusableCAFileReason(path))
        case .libraryUnavailable(let library, let reason):
            return .misconfigured(
                "\(library), the HTTP library Versola loads to send requests, could not be loaded (\(reason)); "
                    + "install it (Debian and Ubuntu: apt install \(CurlLibrary.debianPackage), "
                    + "or \(CurlLibrary.debianPackageTime64) on Debian 13 and Ubuntu 24.04)")
        case .cancelled:
            return .cancelled
        }
    }

    /// A one-line account naming the class and origin; no path, header or body.
    public var description: String {
        switch self {
        case .couldNotResolve(let origin): "could not resolve \(origin)"
        case .couldNotConnect(let origin): "could not connect to \(origin)"
        case .failedAfterSending(let origin): "\(origin) failed after the request was sent"
        case .timedOut(let origin, let written):
            "\(origin) timed out \(written ? "after" : "before") the request was sent"
        case .tls(let origin): "TLS failure with \(origin)"
        case .certificateRejected(let origin, let check): "certificate of \(origin) refused: \(check.rawValue)"
        case .caFileUnusable: "the CA file cannot be used"
        case .responseTooLarge(let origin, let status, let limit):
            "\(origin) answered \(status) with a body over \(limit) bytes"
        case .headerBlockTooLarge(let origin, let limit): "\(origin) sent a header block over \(limit) bytes"
        case .insecureSchemeRefused(let origin): "plain http refused to non-loopback \(origin)"
        case .invalidRequest(let reason): "invalid request: \(reason)"
        case .cancelled: "cancelled"
        case .libraryUnavailable(let library, _): "\(library) could not be loaded"
        }
    }
}
