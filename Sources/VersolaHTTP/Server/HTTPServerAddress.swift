/// The loopback address a server listens on (RFC 8252 §7.3 and §8.3: loopback only, never
/// every interface).
public enum HTTPServerAddress: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `127.0.0.1`.
    case ipv4Loopback
    /// `::1`, bound with `IPV6_V6ONLY`.
    case ipv6Loopback

    /// The numeric host, without brackets: `127.0.0.1` or `::1`.
    public var host: String {
        switch self {
        case .ipv4Loopback: "127.0.0.1"
        case .ipv6Loopback: "::1"
        }
    }

    /// The host as written in a URL: `127.0.0.1` or `[::1]`.
    public var urlHost: String {
        switch self {
        case .ipv4Loopback: "127.0.0.1"
        case .ipv6Loopback: "[::1]"
        }
    }

    public var description: String { host }
}
