/// What one attempt of a request ended with, as the retry table sees it: a transport failure
/// class or a class of status.
public enum RequestOutcome: String, Sendable, Hashable, CaseIterable {
    /// The host name did not resolve; nothing was sent.
    case couldNotResolve
    /// No connection was made; nothing was written.
    case couldNotConnect
    /// Request bytes were written, then the exchange broke (reset, closed, dropped, truncated).
    case failedAfterSending
    /// The connect or total timeout passed.
    case timedOut
    /// TLS handshake or certificate verification failed.
    case tls
    /// The answer's header block or body went over its limit.
    case tooLarge
    /// 408 Request Timeout.
    case status408
    /// 429 Too Many Requests.
    case status429
    /// 500 Internal Server Error.
    case status500
    /// 501 Not Implemented.
    case status501
    /// 502 Bad Gateway.
    case status502
    /// 503 Service Unavailable.
    case status503
    /// 504 Gateway Timeout.
    case status504
    /// 505 HTTP Version Not Supported.
    case status505
    /// Any other 5xx.
    case otherServerError
    /// A 4xx other than 408 and 429.
    case otherClientError
    /// A 3xx.
    case redirect
    /// A 2xx.
    case success
    /// A final status outside 200–599 (a stray 1xx, or nonsense).
    case unexpectedStatus

    /// The outcome class of a final status code.
    public init(status: Int) {
        switch status {
        case 408: self = .status408
        case 429: self = .status429
        case 500: self = .status500
        case 501: self = .status501
        case 502: self = .status502
        case 503: self = .status503
        case 504: self = .status504
        case 505: self = .status505
        case 200...299: self = .success
        case 300...399: self = .redirect
        case 400...499: self = .otherClientError
        case 500...599: self = .otherServerError
        default: self = .unexpectedStatus
        }
    }

    /// The outcome class of a transport failure, or nil for failures the table does not cover
    /// (a refused or invalid URL, a refused certificate, an unusable CA file, a missing HTTP
    /// library, a cancel), which
    /// are never repeated.
    public init?(_ error: TransportError) {
        switch error {
        case .couldNotResolve: self = .couldNotResolve
        case .couldNotConnect: self = .couldNotConnect
        case .failedAfterSending: self = .failedAfterSending
        case .timedOut: self = .timedOut
        case .tls: self = .tls
        case .responseTooLarge, .headerBlockTooLarge: self = .tooLarge
        case .insecureSchemeRefused, .invalidRequest, .cancelled, .certificateRejected, .caFileUnusable,
            .libraryUnavailable:
            return nil
        }
    }
}
