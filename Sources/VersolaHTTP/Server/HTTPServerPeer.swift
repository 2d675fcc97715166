/// The remote end of a connection the server accepted.
public struct HTTPServerPeer: Sendable, Hashable, CustomStringConvertible {
    /// The numeric address, `127.0.0.1` or `::1` style (no brackets).
    public var host: String
    /// The remote TCP port.
    public var port: UInt16

    /// Creates a peer record.
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// `host:port`, with brackets around an IPv6 host.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
