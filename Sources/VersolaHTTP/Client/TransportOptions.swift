/// Per-request settings for an ``HTTPTransport``.
///
/// ```swift
/// var options = TransportOptions()
/// options.totalTimeout = .seconds(5)
/// options.allowConnectionReuse = false   // a code exchange must never be re-sent
/// let session = try Session(configuration: configuration, store: store, environment: .system(transport: options))
/// await session.start()
/// ```
public struct TransportOptions: Sendable, Hashable {
    /// The longest wait for the connection (TCP and TLS) to be made. Default 10 s.
    public var connectTimeout: Duration
    /// The longest the whole request may take, connection included. Default 30 s.
    public var totalTimeout: Duration
    /// The largest response body accepted, in bytes; a larger one fails with
    /// ``TransportError/responseTooLarge(origin:status:limit:)``. Default 1 MiB.
    public var maxResponseBodyBytes: Int
    /// The largest response header block accepted, in bytes (status line and blank line
    /// included); a larger one fails with ``TransportError/headerBlockTooLarge(origin:limit:)``.
    /// Default 64 KiB.
    public var maxHeaderBytes: Int
    /// A PEM file of extra certificate authorities to trust instead of the system's, or nil
    /// for the system store. Verification is always on either way.
    public var caFile: String?
    /// Whether the request may go over a kept-alive connection of an earlier request.
    ///
    /// libcurl re-sends a request on a fresh connection, POST bodies included, when a reused
    /// connection turns out to be dead before any answer byte arrived. The server may then see
    /// the request twice. Set this to false for requests that must never be repeated (the code
    /// exchange, a refresh): the request then gets a new connection, closed afterwards.
    /// Default true.
    public var allowConnectionReuse: Bool

    /// The default body limit: 1 MiB.
    public static let defaultMaxResponseBodyBytes = 1 << 20
    /// The default header block limit: 64 KiB.
    public static let defaultMaxHeaderBytes = 64 << 10

    /// Creates options; every parameter has the default documented on its property.
    public init(
        connectTimeout: Duration = .seconds(10),
        totalTimeout: Duration = .seconds(30),
        maxResponseBodyBytes: Int = TransportOptions.defaultMaxResponseBodyBytes,
        maxHeaderBytes: Int = TransportOptions.defaultMaxHeaderBytes,
        caFile: String? = nil,
        allowConnectionReuse: Bool = true
    ) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maxResponseBodyBytes = maxResponseBodyBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.caFile = caFile
        self.allowConnectionReuse = allowConnectionReuse
    }
}
