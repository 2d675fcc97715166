import Foundation

/// What the authorization request asked for, kept from the request to the code exchange.
struct AuthorizationRequestRecord: Sendable {
    var clientID: String
    var redirectURI: String
    var scope: String
    var state: String?
    var nonce: String?
    var codeChallenge: String
    var dpopThumbprint: String?
    var acrValues: String?
    var maxAge: Int?
    var prompt: String?
    /// Whether the code exchange may issue a refresh token (``TestProviderConfiguration/refreshTokenParameter``).
    var offline = true
    /// The resource indicator (RFC 8707) the request named.
    var resource: String?
}

/// An issued authorization code.
struct CodeRecord: Sendable {
    var request: AuthorizationRequestRecord
    var issuedAt: Date
    var authTime: Date
    var used = false
    /// Tokens minted from it, revoked if the code is replayed (RFC 6749 §4.1.2).
    var family: String
}

/// An issued access token.
struct AccessTokenRecord: Sendable {
    var subject: String
    var clientID: String
    var scope: String
    var dpopThumbprint: String?
    var acr: String?
    var expiresAt: Date
    var family: String
    /// The resource the token is bound to (RFC 8707), when one was named.
    var resource: String?
}

/// An issued refresh token, one of a rotating family.
struct RefreshTokenRecord: Sendable {
    var clientID: String
    var scope: String
    var dpopThumbprint: String?
    var acr: String?
    var authTime: Date
    var family: String
    /// The resource the grant is bound to (RFC 8707).
    var resource: String?
    /// Set once it was exchanged; presenting it again is reuse.
    var rotated = false
}

/// A pushed authorization request awaiting its browser leg.
struct PushedRequestRecord: Sendable {
    var request: AuthorizationRequestRecord
    var expiresAt: Date
}

/// A device authorization (RFC 8628), from the request to the tokens.
struct DeviceCodeRecord: Sendable {
    /// Where the person is in answering it.
    enum Status: Sendable, Equatable {
        case pending
        case approved(authTime: Date)
        case denied
        /// Its tokens were issued; the device code is spent.
        case used
    }

    var clientID: String
    var scope: String
    var userCode: String
    var dpopThumbprint: String?
    var issuedAt: Date
    var expiresAt: Date
    /// The last poll, for `slow_down`.
    var lastPoll: Date?
    var status: Status = .pending
    var family: String
}
