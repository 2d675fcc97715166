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
    /// The person's display name, when present (`name`). Read from the token when asked for,
    /// as the four below: validation builds only what it checks.
    public var name: String? { stringClaim(.name) }
    /// The person's e-mail address, when present (`email`).
    public var email: String? { stringClaim(.email) }
    /// The name the person prefers to be called by, when present (`preferred_username`).
    public var preferredUsername: String? { stringClaim(.preferredUsername) }
    /// The authentication context class satisfied, when present (`acr`).
    public var authenticationContextClass: String? { stringClaim(.authenticationContextClass) }
    /// When the person authenticated, when present (`auth_time`).
    public var authenticationTime: Date? {
        claimValue(.authenticationTime).flatMap(NumericDate.seconds).map { Date(timeIntervalSince1970: $0) }
    }
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

    /// Creates the value from claims the validator has checked in `rawToken`.
    init(issuer: String, subject: String, audiences: [String], expiration: Date, issuedAt: Date, rawToken: String) {
        self.issuer = issuer
        self.subject = subject
        self.audiences = audiences
        self.expiration = expiration
        self.issuedAt = issuedAt
        self.rawToken = rawToken
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
        self.init(
            issuer: issuer, subject: subject, audiences: audiences, expiration: expiration, issuedAt: issuedAt,
            rawToken: rawToken)
    }

    /// A claim of the token read where it lies (nil when absent or the token unreadable).
    private func claimValue(_ claim: IDTokenClaimValues.Claim) -> JSONValue? {
        var token = rawToken
        return token.withUTF8 { bytes -> JSONValue? in
            guard let layout = try? JWS.layout(of: bytes) else { return nil }
            var value: JSONValue?
            try? JWS.withParts(of: bytes, layout) { payload, _, _ in
                value = IDTokenClaimValues.reading(payload: payload) { $0[claim] } ?? nil
            }
            return value
        }
    }

    private func stringClaim(_ claim: IDTokenClaimValues.Claim) -> String? { claimValue(claim)?.string }

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
