import VersolaHTTP
import Foundation
import VersolaJOSE

/// The claims of an ID token that passed validation (A7): who signed in, and when.
///
/// The raw token is kept inside the engine (for storage and `id_token_hint`), never shown:
/// `description` names the issuer and subject only.
public struct IDTokenClaims: Sendable, Hashable, CustomStringConvertible {
    /// The issuer (`iss`).
    public let issuer: String
    /// The person's identifier at the issuer (`sub`).
    public let subject: String
    /// The audiences, the client ID among them (`aud`).
    public let audiences: [String]
    /// The person's display name, when present (`name`).
    public let name: String?
    /// The person's e-mail address, when present (`email`).
    public let email: String?
    /// The name the person prefers to be called by, when present (`preferred_username`).
    public let preferredUsername: String?
    /// The authentication context class satisfied, when present (`acr`).
    public let authenticationContextClass: String?
    /// When the person authenticated, when present (`auth_time`).
    public let authenticationTime: Date?
    /// When the token expires (`exp`).
    public let expiration: Date
    /// When the token was issued (`iat`).
    public let issuedAt: Date
    /// Every claim, for those Versola does not name (strings are redacted when printed).
    public let claims: JWTClaims
    /// The compact token as received. Internal: a secret-adjacent credential.
    let rawToken: String

    /// Creates the value from claims the validator has checked; `values` are those claims'
    /// members, already found (``IDTokenClaimValues``).
    init(
        issuer: String, subject: String, audiences: [String], expiration: Date, issuedAt: Date, claims: JWTClaims,
        values: IDTokenClaimValues, rawToken: String
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audiences = audiences
        self.expiration = expiration
        self.issuedAt = issuedAt
        self.claims = claims
        self.rawToken = rawToken
        name = values[.name]?.string
        email = values[.email]?.string
        preferredUsername = values[.preferredUsername]?.string
        authenticationContextClass = values[.authenticationContextClass]?.string
        authenticationTime = values[.authenticationTime].flatMap(NumericDate.seconds).map { Date(timeIntervalSince1970: $0) }
    }

    /// Reads the claims of a token without checking them.
    /// - Returns: nil when a required claim (`iss`, `sub`, `aud`, `exp`, `iat`) is missing.
    init?(claims: JWTClaims, rawToken: String) {
        guard let issuer = claims.issuer, let subject = claims.subject, let audiences = claims.audiences,
            let expiration = claims.expiration, let issuedAt = claims.issuedAt
        else { return nil }
        self.init(
            issuer: issuer, subject: subject, audiences: audiences, expiration: expiration, issuedAt: issuedAt,
            claims: claims, values: IDTokenClaimValues(claims.object), rawToken: rawToken)
    }

    /// Reads a stored ID token that was validated when it was received, without checking it
    /// again (its signature key may have rotated since). For restoring a session from storage.
    init?(restoringValidated rawToken: String) {
        guard let jws = try? JWS(compact: rawToken), let claims = try? JWTClaims(payload: jws.payload) else {
            return nil
        }
        self.init(claims: claims, rawToken: rawToken)
    }

    /// Issuer and subject only.
    public var description: String {
        "IDTokenClaims(iss: \(issuer), sub: \(subject))"
    }
}
