/// Why a request was refused before it reached the handler, with the status the server
/// answers before closing the connection. `detail` never quotes the input.
public struct HTTPRequestParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status to answer: 400, 408, 413, 414, 431, 501 or 505.
    public var status: Int
    /// A short fixed explanation (it never echoes request bytes).
    public var detail: String

    /// Creates an error record.
    public init(status: Int, detail: String) {
        self.status = status
        self.detail = detail
    }

    public var description: String { "\(status): \(detail)" }

    static func malformed(_ detail: String) -> Self { Self(status: 400, detail: detail) }
    static let requestLineTooLong = Self(status: 414, detail: "request line too long")
    static let headersTooLarge = Self(status: 431, detail: "header fields too large")
    static let tooManyHeaders = Self(status: 431, detail: "too many header fields")
    static let bodyTooLarge = Self(status: 413, detail: "body too large")
    static let versionNotSupported = Self(status: 505, detail: "HTTP version not supported")
    static let transferEncodingNotImplemented = Self(
        status: 501, detail: "Transfer-Encoding on requests is not supported")
    static let timedOut = Self(status: 408, detail: "request not complete in time")
}
