import Foundation

/// The parts of an identifier that well-known locations are built from (RFC 8615): its origin
/// and its path without a trailing `/`, so that a well-known name can be inserted between them
/// (RFC 8414 §3.1, RFC 9728 §3.1) or appended (OpenID Connect Discovery §4).
enum WellKnownURL {
    /// `https://h:8443` and `/tenant` for `https://h:8443/tenant/`; nil without a scheme and host.
    static func parts(of identifier: String) -> (origin: String, path: String)? {
        guard let components = URLComponents(string: identifier), let scheme = components.scheme,
            let host = components.host
        else { return nil }
        var path = components.percentEncodedPath
        if path.hasSuffix("/") { path.removeLast() }
        let port = components.port.map { ":\($0)" } ?? ""
        let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return ("\(scheme)://\(hostPart)\(port)", path)
    }
}
