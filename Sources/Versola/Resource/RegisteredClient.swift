import VersolaHTTP
import Foundation
import VersolaJOSE

/// A client registration an authorization server made for this app (RFC 7591, A19): kept per
/// server so that registering happens once, and reused by every resource behind that server.
///
/// ```swift
/// let registrations = FileClientRegistrations(directory: "/home/me/.local/state/versola/registrations")
/// if let known = try registrations.registration(for: "https://auth.example.com") {
///     print("registered as", known.clientID, "on port", known.redirectPort)
/// }
/// ```
public struct RegisteredClient: Sendable, Hashable, CustomStringConvertible {
    /// The authorization server's issuer.
    public var issuer: String
    /// The `client_id` it assigned.
    public var clientID: String
    /// A secret, when the server made a secret-holding client although none was asked for.
    public var clientSecret: ClientSecret?
    /// The loopback redirect URI registered; servers match it exactly, port included.
    public var redirectURI: String
    /// Whether the server granted `refresh_token` (some drop it unless asked).
    public var refreshGranted: Bool
    /// The scopes registered (space-separated), when any were: servers such as the MCP SDK's
    /// allow a client no others.
    public var scope: String?

    /// Creates a registration.
    public init(
        issuer: String, clientID: String, clientSecret: ClientSecret? = nil, redirectURI: String, refreshGranted: Bool,
        scope: String? = nil
    ) {
        self.scope = scope
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURI = redirectURI
        self.refreshGranted = refreshGranted
    }

    /// Whether the registration covers `scopes`: each was registered (or none is asked for).
    public func covers(_ scopes: [String]) -> Bool {
        let registered = Set((scope ?? "").split(separator: " ").map(String.init))
        return scopes.allSatisfy { registered.contains($0) }
    }

    /// The port of the registered redirect URI.
    public var redirectPort: UInt16 {
        URLComponents(string: redirectURI)?.port.flatMap { UInt16(exactly: $0) } ?? 0
    }

    /// The path of the registered redirect URI.
    public var redirectPath: String {
        let path = URLComponents(string: redirectURI)?.path ?? ""
        return path.isEmpty ? "/callback" : path
    }

    /// Never the secret.
    public var description: String {
        "RegisteredClient(\(issuer), client \(clientID), redirect \(redirectURI))"
    }

    /// The stored form (a user-only file: it may hold a secret).
    var json: JSONValue {
        [
            "issuer": .string(issuer), "clientID": .string(clientID),
            "clientSecret": clientSecret.map { .string($0.value) } ?? .null, "redirectURI": .string(redirectURI),
            "refreshGranted": .bool(refreshGranted), "scope": scope.map { .string($0) } ?? .null,
        ]
    }

    /// Reads the stored form; nil when it is not one.
    init?(json: JSONValue) {
        guard let issuer = json["issuer"]?.string, let clientID = json["clientID"]?.string,
            let redirectURI = json["redirectURI"]?.string
        else { return nil }
        self.init(
            issuer: issuer, clientID: clientID, clientSecret: json["clientSecret"]?.string.map(ClientSecret.init),
            redirectURI: redirectURI, refreshGranted: json["refreshGranted"]?.bool ?? true, scope: json["scope"]?.string)
    }
}
