import Foundation

/// Where a request goes: `scheme://host[:port]`, the key for retry cooldowns (R8) and,
/// later, DPoP nonce caching (D3).
///
/// Scheme and host are lowercased, IPv6 brackets are dropped from `host` (and put back in
/// `description`), and the scheme's default port (80 for `http`, 443 for `https`) is dropped,
/// so `HTTPS://Example.COM:443/a` and `https://example.com/b` have the same origin.
public struct Origin: Sendable, Hashable, CustomStringConvertible {
    /// The lowercased scheme, `http` or `https` for anything the transport sends.
    public let scheme: String
    /// The lowercased host name or address, without IPv6 brackets.
    public let host: String
    /// The port, or nil when it is the scheme's default.
    public let port: Int?

    /// Creates an origin from its parts, normalising them as described on the type.
    /// Returns nil when the scheme or host is empty, the host holds a URL delimiter, or the
    /// port is out of range.
    public init?(scheme: String, host: String, port: Int? = nil) {
        let scheme = scheme.lowercased()
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        guard !scheme.isEmpty, !host.isEmpty else { return nil }
        // A host is a name or an address: characters that delimit URL parts (a percent-decoded
        // `%2F`, say) would make an origin whose text does not parse back.
        guard !host.contains(where: { "/?#@ \\%".contains($0) }) else { return nil }
        if let port, !(0...65_535).contains(port) { return nil }
        self.scheme = scheme
        self.host = host
        self.port = port == Origin.defaultPort(for: scheme) ? nil : port
    }

    /// The origin of an absolute URL, or nil when it has no scheme or host.
    public init?(url: URL) {
        guard let scheme = url.scheme, let host = url.host else { return nil }
        self.init(scheme: scheme, host: host, port: url.port)
    }

    /// `scheme://host[:port]`, with brackets around an IPv6 address.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        if let port { return "\(scheme)://\(shownHost):\(port)" }
        return "\(scheme)://\(shownHost)"
    }

    /// Whether the host is a loopback name or address: `localhost`, `127.0.0.0/8` or `::1`.
    /// Plain `http` is allowed only to these.
    public var isLoopback: Bool {
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.first == "127" else { return false }
        return octets.allSatisfy { octet in
            !octet.isEmpty && octet.count <= 3 && octet.allSatisfy(\.isASCII) && octet.allSatisfy(\.isNumber)
                && (Int(octet) ?? 256) <= 255
        }
    }

    /// The port the scheme uses when none is written.
    static func defaultPort(for scheme: String) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }
}
