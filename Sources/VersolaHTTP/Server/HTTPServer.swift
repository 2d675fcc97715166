/// A small HTTP/1.1 server on a loopback address: the loopback redirect listener
/// (RFC 8252 §7.3), the test OpenID Provider and the benchmarks use it.
///
/// Each connection is served on its own thread with blocking socket calls (never on
/// Swift's cooperative pool); the handler runs as a task, so many slow handlers overlap.
/// Connections are kept alive as HTTP/1.1 allows, and closed after
/// ``HTTPServerLimits/readTimeout`` without a byte. Malformed requests are answered with
/// their 4xx/5xx status and the connection is closed; other connections are unaffected.
///
/// ```swift
/// let server = try HTTPServer.start(address: .ipv4Loopback, port: 0) { request in
///     request.path == "/callback" ? .respond(.text("You can close this window.")) : .respond(HTTPServerResponse(status: 404))
/// }
/// print(server.baseURL)   // http://127.0.0.1:49152
/// await server.stop()
/// ```
public final class HTTPServer: Sendable {
    /// The address listened on.
    public let address: HTTPServerAddress
    /// The port actually bound (the kernel's pick when started with port 0).
    public let port: UInt16
    /// The limits applied to every connection.
    public let limits: HTTPServerLimits
    private let core: HTTPServerCore

    /// `http://127.0.0.1:PORT` or `http://[::1]:PORT`, without a trailing slash.
    public var baseURL: String { "http://\(address.urlHost):\(port)" }

    private init(address: HTTPServerAddress, port: UInt16, limits: HTTPServerLimits, core: HTTPServerCore) {
        self.address = address
        self.port = port
        self.limits = limits
        self.core = core
    }

    /// Binds and starts serving.
    ///
    /// - Parameters:
    ///   - address: the loopback address to bind.
    ///   - port: a fixed port, or 0 for an ephemeral one chosen by the system.
    ///   - limits: the bounds on requests and connections.
    ///   - acceptHook: decides, per connection and before reading, whether to serve it or to
    ///     close or reset it (fault injection). Nil serves every connection.
    ///   - handler: answers each request; it may suspend as long as it likes.
    /// - Throws: ``HTTPServerError/addressInUse(address:port:)`` when the fixed port is
    ///   taken, or another ``HTTPServerError`` when the socket cannot be set up.
    public static func start(
        address: HTTPServerAddress = .ipv4Loopback,
        port: UInt16 = 0,
        limits: HTTPServerLimits = HTTPServerLimits(),
        acceptHook: (@Sendable (HTTPServerPeer) async -> HTTPServerAcceptDecision)? = nil,
        handler: @escaping @Sendable (HTTPServerRequest) async -> HTTPServerAction
    ) throws(HTTPServerError) -> HTTPServer {
        let (descriptor, boundPort) = try ServerSocket.listen(address: address, port: port)
        let core = HTTPServerCore(descriptor: descriptor, limits: limits, acceptHook: acceptHook, handler: handler)
        core.startAccepting(descriptor: descriptor)
        return HTTPServer(address: address, port: boundPort, limits: limits, core: core)
    }

    /// The number of connections currently open.
    public var openConnectionCount: Int { core.registry.openCount }

    /// Stops the server: closes the listening socket (the port is free when this returns)
    /// and shuts down every open connection. A handler still running finishes, but its
    /// answer is not delivered. Calling it again does nothing.
    public func stop() async {
        core.beginStop()
        await core.waitUntilListenerClosed()
    }

    deinit {
        core.beginStop()
    }
}
