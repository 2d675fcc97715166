/// One HTTP answer: status, header fields (repeated fields kept, in order) and body bytes.
///
/// A 3xx is an answer like any other: the transport never follows redirects.
public struct HTTPResponse: Sendable, Hashable, CustomStringConvertible {
    /// The status code of the final answer (interim 1xx answers are skipped).
    public var status: Int
    /// Every header field of the final answer, in order, repeated names kept.
    public var headers: HTTPHeaders
    /// The body bytes (empty for `HEAD` and bodiless statuses).
    public var body: [UInt8]
    /// The origin that answered.
    public var origin: Origin

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], origin: Origin) {
        self.status = status
        self.headers = headers
        self.body = body
        self.origin = origin
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200...299).contains(status) }

    /// Status, origin and body size only: never header values or body, which may hold tokens.
    public var description: String {
        "\(status) from \(origin), \(body.count) body bytes"
    }
}
