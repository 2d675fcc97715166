import VersolaHTTP
import Foundation

/// Everything a ``Session`` needs besides its store: the client registration and its timing.
/// Validated as a whole before anything is sent (R2). The profile a session is kept under is
/// the store's (``FileSessionStore/profile``), named once, where the store is made.
///
/// ```swift
/// var configuration = SessionConfiguration(client: ClientConfiguration(issuer: issuer, clientID: "cli"))
/// configuration.refreshMargin = .seconds(300)
/// try configuration.validate()
/// ```
public struct SessionConfiguration: Sendable, Hashable {
    /// The client registration.
    public var client: ClientConfiguration
    /// Renew the access token when less than this is left (T1). 0…1 hour; default 2 minutes.
    public var refreshMargin: Duration
    /// How long a login waits for the browser leg.
    public var loginTimeout: Duration

    /// Creates a configuration with the defaults.
    public init(client: ClientConfiguration) {
        self.client = client
        self.refreshMargin = .seconds(120)
        self.loginTimeout = .seconds(300)
    }

    /// Checks every setting.
    /// - Throws: `.configuration(.invalidConfiguration)` naming the first bad one.
    public func validate() throws(VersolaError) {
        try client.validate()
        guard refreshMargin >= .zero, refreshMargin <= .seconds(3600) else {
            throw .configuration(.invalidConfiguration("refresh margin must be 0…3600 s"))
        }
        guard loginTimeout >= .seconds(10), loginTimeout <= .seconds(3600) else {
            throw .configuration(.invalidConfiguration("login timeout must be 10…3600 s"))
        }
    }
}

/// Who is signed in, from the ID token: available without the network (T5). A session signed
/// in without `openid` (A16) has no ID token, and so no `SessionUser`.
public struct SessionUser: Sendable, Hashable {
    /// The subject identifier.
    public var subject: String
    /// The display name, when the provider gave one.
    public var name: String?
    /// The e-mail address, when the provider gave one.
    public var email: String?

    init(_ claims: IDTokenClaims) {
        subject = claims.subject
        name = claims.name
        email = claims.email
    }
}
