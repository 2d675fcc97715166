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
}

/// An issued refresh token, one of a rotating family.
struct RefreshTokenRecord: Sendable {
    var clientID: String
    var scope: String
    var dpopThumbprint: String?
    var acr: String?
    var authTime: Date
    var family: String
    /// Set once it was exchanged; presenting it again is reuse.
    var rotated = false
}

/// A pushed authorization request awaiting its browser leg.
struct PushedRequestRecord: Sendable {
    var request: AuthorizationRequestRecord
    var expiresAt: Date
}
