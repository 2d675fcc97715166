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
    /// The resource identifier: the one asked for, or a path above it on the same origin.
    public let resource: String
    /// The issuers of the authorization servers that issue tokens for it (`authorization_servers`).
    public let authorizationServers: [String]
    /// The scopes the resource knows (`scopes_supported`), when listed.
    public let scopesSupported: [String]?

    /// Parses and checks a document.
    /// - Parameters:
    ///   - body: the document's bytes.
    ///   - resource: the resource asked for; the document's `resource` must be it or a
    ///     whole-segment path prefix of it on the same origin (``ResourceURL/covers(_:)``, as the
    ///     MCP authorization rules and their SDKs allow: root metadata names the origin), or a
    ///     document planted for another resource would be believed. The document's `resource`
    ///     is then the one tokens are asked for (RFC 8707).
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
        guard let namedURL = ResourceURL(named), let askedURL = ResourceURL(resource), namedURL.covers(askedURL) else {
            throw .configuration(
                .invalidConfiguration(
                    "the protected resource metadata is for \(ProviderText.clean(named, limit: 200)), which is neither "
                        + "\(resource) nor a path above it on the same origin: check the resource URL (--resource)"))
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

    /// What a resource without metadata stands for (the 2025-03-26 MCP rules, A19): its origin
    /// is its authorization server, unless the application named one (`server`).
    init(withoutDocumentFor resource: String, server: String?) {
        self.resource = resource
        authorizationServers = server.map { [$0] } ?? ResourceURL(resource).map { [$0.origin.description] } ?? []
        scopesSupported = nil
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
