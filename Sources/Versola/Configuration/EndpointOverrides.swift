import VersolaHTTP
import Foundation

/// Endpoints given by the application, for providers whose metadata lacks or misstates them,
/// or that publish no metadata at all (A18, A16).
///
/// An endpoint given here replaces the metadata's. A provider with no metadata document (GitHub's
/// OAuth apps, many API gateways) is configured with at least the authorization and token
/// endpoints. Each must be `https` (plain `http` only on a loopback host) without a fragment.
///
/// ```swift
/// var configuration = ClientConfiguration(issuer: "https://github.com", clientID: "Iv1.example")
/// configuration.endpoints[.authorization] = URL(string: "https://github.com/login/oauth/authorize")
/// configuration.endpoints[.token] = URL(string: "https://github.com/login/oauth/access_token")
/// configuration.scopes = ["repo"]
/// ```
public struct EndpointOverrides: Sendable, Hashable {
    /// The endpoints that can be overridden, by the names the command takes (`--endpoint NAME=URL`).
    public enum Name: String, Sendable, Hashable, CaseIterable, Comparable {
        /// The authorization endpoint (`authorization_endpoint`).
        case authorization
        /// The token endpoint (`token_endpoint`).
        case token
        /// The device authorization endpoint (`device_authorization_endpoint`, RFC 8628).
        case device
        /// The UserInfo endpoint (`userinfo_endpoint`).
        case userInfo = "userinfo"
        /// The revocation endpoint (`revocation_endpoint`, RFC 7009).
        case revocation
        /// The end-session endpoint (`end_session_endpoint`).
        case endSession = "end-session"
        /// The key set (`jwks_uri`).
        case jwks

        /// Orders by declaration.
        public static func < (lhs: Name, rhs: Name) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    private var urls: [Name: URL]

    /// No overrides.
    public init() {
        urls = [:]
    }

    /// The URL given for an endpoint, or nil.
    public subscript(name: Name) -> URL? {
        get { urls[name] }
        set { urls[name] = newValue }
    }

    /// Whether nothing is overridden.
    public var isEmpty: Bool { urls.isEmpty }

    /// The overrides, in the order of ``Name``.
    public var all: [(name: Name, url: URL)] {
        urls.keys.sorted().map { ($0, urls[$0]!) }
    }

    /// Whether a login can go without any metadata: the authorization and token endpoints are given.
    public var sufficeWithoutMetadata: Bool {
        urls[.authorization] != nil && urls[.token] != nil
    }

    /// Checks each URL: absolute, `https` (plain `http` only on loopback), no fragment.
    /// - Throws: `.configuration(.invalidConfiguration)` naming the endpoint.
    public func validate() throws(VersolaError) {
        for (name, url) in all {
            guard let scheme = url.scheme?.lowercased(), let origin = Origin(url: url), url.fragment == nil else {
                throw .configuration(
                    .invalidConfiguration("the \(name.rawValue) endpoint \(url.absoluteString) is not an absolute URL without fragment"))
            }
            guard scheme == "https" || (scheme == "http" && origin.isLoopback) else {
                throw .configuration(
                    .invalidConfiguration(
                        "the \(name.rawValue) endpoint must use https (plain http only on loopback): \(url.absoluteString)"))
            }
        }
    }
}
