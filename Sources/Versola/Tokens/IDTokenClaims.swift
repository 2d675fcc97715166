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
    /// Every claim, for those Versola does not name (strings are redacted when printed). Read
    /// from the token when asked for: validation builds no claims object.
    public var claims: JWTClaims {
        Self.payloadClaims(of: rawToken) ?? JWTClaims(JSONObject())
    }
    /// The compact token as received. Internal: a secret-adjacent credential.
    let rawToken: String

    /// Creates the value from claims the validator has checked; `values` are those claims'
    /// members, already found (``IDTokenClaimValues``).
    init(
        issuer: String, subject: String, audiences: [String], expiration: Date, issuedAt: Date,
        values: IDTokenClaimValues, rawToken: String
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audiences = audiences
        self.expiration = expiration
        self.issuedAt = issuedAt
        self.rawToken = rawToken
        name = values[.name]?.string
        email = values[.email]?.string
        preferredUsername = values[.preferredUsername]?.string
        authenticationContextClass = values[.authenticationContextClass]?.string
        authenticationTime = values[.authenticationTime].flatMap(NumericDate.seconds).map { Date(timeIntervalSince1970: $0) }
    }

    /// Reads a stored ID token that was validated when it was received, without checking it
    /// again (its signature key may have rotated since). For restoring a session from storage.
    /// - Returns: nil when the token is unreadable or a required claim (`iss`, `sub`, `aud`,
    ///   `exp`, `iat`) is missing.
    init?(restoringValidated rawToken: String) {
        guard let claims = try? JWTClaims(payload: JWS(compact: rawToken).payload),
            let issuer = claims.issuer, let subject = claims.subject, let audiences = claims.audiences,
            let expiration = claims.expiration, let issuedAt = claims.issuedAt
        else { return nil }
        var token = rawToken
        let made = token.withUTF8 { bytes -> IDTokenClaims? in
            guard let layout = try? JWS.layout(of: bytes) else { return nil }
            var read: IDTokenClaims?
            try? JWS.withParts(of: bytes, layout) { payload, _, _ in
                read = IDTokenClaimValues.reading(payload: payload) { values in
                    IDTokenClaims(
                        issuer: issuer, subject: subject, audiences: audiences, expiration: expiration,
                        issuedAt: issuedAt, values: values, rawToken: rawToken)
                }
            }
            return read
        }
        guard let made else { return nil }
        self = made
    }

    /// The claims of a token's payload, or nil when it is unreadable.
    private static func payloadClaims(of rawToken: String) -> JWTClaims? {
        guard let jws = try? JWS(compact: rawToken) else { return nil }
        return try? JWTClaims(payload: jws.payload)
    }

    /// Issuer and subject only.
    public var description: String {
        "IDTokenClaims(iss: \(issuer), sub: \(subject))"
    }
}
