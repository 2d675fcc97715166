import VersolaHTTP
import Foundation
import VersolaJOSE

/// A protected resource's metadata (RFC 9728 §2): which authorization servers issue its tokens
/// and which scopes it knows, checked against the resource asked for (A19).
///
/// ```swift
/// let metadata = try ProtectedResourceMetadata(parsing: response.body, resource: "https://api.example.com/mcp")
/// print(metadata.authorizationServers)
/// ```
public struct ProtectedResourceMetadata: Sendable, Hashable {
    /// The resource identifier, equal to the one asked for.
    public let resource: String
    /// The issuers of the authorization servers that issue tokens for it (`authorization_servers`).
    public let authorizationServers: [String]
    /// The scopes the resource knows (`scopes_supported`), when listed.
    public let scopesSupported: [String]?

    /// Parses and checks a document.
    /// - Parameters:
    ///   - body: the document's bytes.
    ///   - resource: the resource asked for; the document's `resource` must equal it exactly
    ///     (RFC 9728 §3.3), or a document planted for another resource would be believed.
    /// - Throws: `.configuration(.providerUnsupported)` for a malformed document, one without
    ///   `resource` or any authorization server; `.configuration(.invalidConfiguration)` when
    ///   its `resource` is another one.
    public init(parsing body: some Collection<UInt8>, resource: String) throws(VersolaError) {
        guard let json = try? JSONValue(parsing: body), case .object(let document) = json else {
            throw .configuration(.providerUnsupported("the protected resource metadata is not a JSON object"))
        }
        guard let named = document["resource"]?.string else {
            throw .configuration(.providerUnsupported("the protected resource metadata names no resource"))
        }
        guard named == resource else {
            throw .configuration(
                .invalidConfiguration(
                    "the protected resource metadata is for \(ProviderText.clean(named, limit: 200)), not \(resource): "
                        + "check the resource URL (--resource), which must be exactly the API's"))
        }
        let servers = document["authorization_servers"]?.array?.compactMap(\.string) ?? []
        guard !servers.isEmpty else {
            throw .configuration(
                .providerUnsupported("the protected resource metadata of \(resource) names no authorization server"))
        }
        self.resource = named
        authorizationServers = servers
        scopesSupported = document["scopes_supported"]?.array?.compactMap(\.string)
    }

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

    /// `/.well-known/oauth-protected-resource` (RFC 9728 §3).
    public static let wellKnownPath = "/.well-known/oauth-protected-resource"

    /// Checks a resource identifier (RFC 8707 §2): an absolute `https` URL (plain `http` on
    /// loopback) without fragment.
    /// - Throws: `.configuration(.invalidConfiguration)`.
    public static func validateResource(_ resource: String) throws(VersolaError) {
        guard let url = URL(string: resource), let scheme = url.scheme?.lowercased(), let origin = Origin(url: url),
            url.fragment == nil, !resource.contains("#")
        else {
            throw .configuration(.invalidConfiguration("the resource \(resource) is not an absolute URL without fragment"))
        }
        guard scheme == "https" || (scheme == "http" && origin.isLoopback) else {
            throw .configuration(.invalidConfiguration("the resource must use https (plain http only on loopback): \(resource)"))
        }
    }
}
