/// The bounds the server puts on each request and connection. Every default is small on
/// purpose: the server answers loopback redirects and test traffic, never large uploads.
///
/// ```swift
/// var limits = HTTPServerLimits()
/// limits.maxBodyBytes = 64 * 1024
/// ```
public struct HTTPServerLimits: Sendable, Hashable {
    /// The longest request line (method, target and version, without the CRLF), in bytes.
    /// Longer lines are answered 414. Default 8192.
    public var maxRequestLineBytes: Int
    /// The most header fields one request may carry. More are answered 431. Default 100.
    public var maxHeaderCount: Int
    /// The most bytes all header lines of one request may take together, each with its
    /// CRLF, not counting the request line. More are answered 431. Default 16384.
    public var maxHeaderBytes: Int
    /// The largest `Content-Length` accepted. Larger bodies are answered 413. Default 1 MiB.
    public var maxBodyBytes: Int
    /// How long the server waits for the next bytes of a request, and how long an idle
    /// keep-alive connection stays open. Default 10 seconds.
    public var readTimeout: Duration
    /// How many connections may be open at once; further ones are closed on accept (or,
    /// with ``dropsOldestWhenFull``, make room). Default 256.
    public var maxConnections: Int
    /// The longest a connection stays open, however it trickles bytes: once it has passed,
    /// the connection is closed (a request still being read is answered 408). Nil (the
    /// default) bounds only the wait for each read (``readTimeout``).
    public var connectionLifetime: Duration?
    /// When ``maxConnections`` are open, a new connection closes the oldest one instead of
    /// being refused, so that idle or slow connections can never keep a new one out.
    /// Default false.
    public var dropsOldestWhenFull: Bool

    /// Creates limits; every parameter has the documented default.
    public init(
        maxRequestLineBytes: Int = 8192,
        maxHeaderCount: Int = 100,
        maxHeaderBytes: Int = 16384,
        maxBodyBytes: Int = 1 << 20,
        readTimeout: Duration = .seconds(10),
        maxConnections: Int = 256,
        connectionLifetime: Duration? = nil,
        dropsOldestWhenFull: Bool = false
    ) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.readTimeout = readTimeout
        self.maxConnections = maxConnections
        self.connectionLifetime = connectionLifetime
        self.dropsOldestWhenFull = dropsOldestWhenFull
    }
}
