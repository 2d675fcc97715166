/// Sends one HTTP request and returns the answer, with an exact account of how far a
/// failed request got.
///
/// ``CurlTransport`` is the real one; tests and the retry engine substitute their own.
/// A transport sends each request at most once unless ``TransportOptions/allowConnectionReuse``
/// lets it transparently re-send over a fresh connection a request whose reused keep-alive
/// connection turned out to be dead.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the final answer, whatever its status (3xx included).
    /// - Parameters:
    ///   - request: the request to send.
    ///   - options: timeouts, size limits, trust and connection reuse for this request.
    /// - Throws: a ``TransportError`` saying why no usable answer arrived.
    func send(_ request: HTTPRequest, options: TransportOptions) async throws(TransportError) -> HTTPResponse
}
