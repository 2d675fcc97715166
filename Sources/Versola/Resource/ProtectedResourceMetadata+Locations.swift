import VersolaHTTP
import Foundation

extension ProtectedResourceMetadata {
    /// Where a resource's metadata may be (RFC 9728 §3.1): the well-known name inserted before
    /// the resource's path, then, for a resource with a path, at the origin's root (as the MCP
    /// authorization rules ask of clients).
    public static func locations(for resource: String) -> [URL] {
        guard let (origin, path) = WellKnownURL.parts(of: resource) else { return [] }
        var urls: [URL] = []
        if let url = URL(string: origin + wellKnownPath + path) { urls.append(url) }
        if !path.isEmpty, let url = URL(string: origin + wellKnownPath) { urls.append(url) }
        return urls
    }

    /// Where a resource's metadata is looked for, in order (A19): the location a 401 named
    /// (`resource_metadata`, RFC 9728 §5.1), then ``locations(for:)``.
    /// - Parameters:
    ///   - resource: the resource's URL.
    ///   - named: the challenge's `resource_metadata`, when there was one.
    /// - Throws: `.configuration(.invalidConfiguration)` naming a `named` location that
    ///   ``allowsMetadataLocation(_:for:)`` refuses; it is not fetched.
    public static func locations(for resource: String, named: String?) throws(VersolaError) -> [URL] {
        var urls = locations(for: resource)
        guard let named else { return urls }
        guard let url = URL(string: named), allowsMetadataLocation(url, for: resource) else {
            throw .configuration(
                .invalidConfiguration(
                    "\(resource) names its metadata at \(ProviderText.clean(named, limit: 200)), which versola does not "
                        + "fetch: only the API's own origin, or https on a public host, may hold it"))
        }
        urls.removeAll { $0 == url }
        return [url] + urls
    }

    /// Whether a `resource_metadata` location a resource names may be fetched (A19): on the
    /// resource's own origin, or `https` on a host that is not a loopback, link-local or private
    /// address (a remote API never makes versola ask a local service).
    public static func allowsMetadataLocation(_ url: URL, for resource: String) -> Bool {
        guard url.fragment == nil, let origin = Origin(url: url), let owner = ResourceURL(resource)?.origin else { return false }
        if origin == owner { return origin.scheme == "https" || origin.isLoopback }
        return origin.scheme == "https" && !origin.isLocalNetwork
    }
}

extension Origin {
    /// Whether the host names this machine or a local network: `localhost` (and names below it),
    /// loopback, unspecified, link-local, private (RFC 1918, RFC 4193) and shared (RFC 6598)
    /// addresses, IPv4-mapped ones included.
    var isLocalNetwork: Bool {
        if isLoopback || host == "localhost" || host.hasSuffix(".localhost") || host.hasSuffix(".local") { return true }
        if host.contains(":") { return Self.isLocalIPv6(host) }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        // A name's last label is never numeric: this is an address, and one written in another
        // form (`2130706433`, `0x7f.1`) is taken as local rather than decoded.
        guard let last = labels.last, last.allSatisfy(\.isNumber) || last.lowercased().hasPrefix("0x") else { return false }
        let octets = labels.compactMap { UInt8($0) }
        guard octets.count == 4, labels.count == 4, labels.allSatisfy({ $0 == "0" || !$0.hasPrefix("0") }) else { return true }
        return Self.isLocalIPv4(octets)
    }

    private static func isLocalIPv4(_ octets: [UInt8]) -> Bool {
        switch (octets[0], octets[1]) {
        case (0, _), (10, _), (127, _), (169, 254), (192, 168): true
        case (172, 16...31), (100, 64...127): true
        default: false
        }
    }

    private static func isLocalIPv6(_ host: String) -> Bool {
        let address = host.split(separator: "%").first.map(String.init) ?? host
        if address == "::" || address == "::1" { return true }
        if address.hasPrefix("::ffff:") {
            let mapped = address.dropFirst("::ffff:".count).split(separator: ".").compactMap { UInt8($0) }
            return mapped.count != 4 || isLocalIPv4(mapped)
        }
        guard let first = address.split(separator: ":", omittingEmptySubsequences: false).first,
            let group = UInt16(first, radix: 16)
        else { return true }
        return (group & 0xffc0) == 0xfe80 || (group & 0xfe00) == 0xfc00
    }
}
