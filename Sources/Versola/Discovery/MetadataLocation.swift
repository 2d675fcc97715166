import Foundation

/// A place where an issuer's metadata may be (A16), and the kind of document published there.
struct MetadataLocation: Sendable, Hashable {
    /// The document's URL.
    var url: URL
    /// What kind of document it is there.
    var source: ProviderMetadata.Source

    /// Where an issuer's metadata may be, in the order they are asked. For `https://h/tenant`,
    /// RFC 8414 §5 gives (and the MCP authorization rules spell out):
    /// 1. `https://h/.well-known/oauth-authorization-server/tenant` (RFC 8414 §3.1: inserted before the path),
    /// 2. `https://h/.well-known/openid-configuration/tenant` (RFC 8414 §5: the same, OpenID's name),
    /// 3. `https://h/tenant/.well-known/openid-configuration` (OpenID Connect Discovery §4: appended);
    ///
    /// with `openIDFirst`, the last (where every OpenID provider publishes) comes first and the
    /// others follow in their order. An issuer without a path has the first and last only.
    /// - Returns: no location when the issuer has no scheme and host.
    static func candidates(forIssuer issuer: String, openIDFirst: Bool) -> [MetadataLocation] {
        guard let (origin, path) = WellKnownURL.parts(of: issuer) else { return [] }
        var locations: [MetadataLocation] = []
        if let url = URL(string: origin + "/.well-known/oauth-authorization-server" + path) {
            locations.append(MetadataLocation(url: url, source: .oauthAuthorizationServer))
        }
        if !path.isEmpty, let url = URL(string: origin + "/.well-known/openid-configuration" + path) {
            locations.append(MetadataLocation(url: url, source: .openIDConnect))
        }
        if let url = DiscoveryClient.documentURL(forIssuer: issuer) {
            let appended = MetadataLocation(url: url, source: .openIDConnect)
            if openIDFirst { locations.insert(appended, at: 0) } else { locations.append(appended) }
        }
        return locations
    }

    /// Whether a configuration asks the OpenID location first: when `openid` is among its scopes
    /// (one request for every OpenID provider), unless it signs in for a protected resource
    /// (A19), which keeps the order RFC 8414 §5 and the MCP authorization rules give.
    static func asksOpenIDFirst(_ configuration: ClientConfiguration) -> Bool {
        configuration.resource == nil && configuration.scopes.contains("openid")
    }
}
