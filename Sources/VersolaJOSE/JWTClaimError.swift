import Foundation

/// Why a JWT claims set (RFC 7519) was rejected. Each case names what to fix.
public enum JWTClaimError: Error, Sendable, Hashable {
    /// The payload is not a JSON object.
    case payloadNotAnObject
    /// A required claim is absent (`iss`, `aud`, `exp`, `iat`).
    case missingClaim(String)
    /// A claim has the wrong type (for example `exp` as a string, `aud` with a non-string).
    case invalidClaim(String)
    /// `iss` is not exactly the expected issuer.
    case issuerMismatch(expected: String, actual: String)
    /// `aud` does not contain the expected audience (the client ID).
    case audienceMismatch(expected: String, actual: [String])
    /// `exp` plus the clock tolerance is not after `now`.
    case expired(expiration: Date, now: Date)
    /// `nbf` minus the clock tolerance is after `now`.
    case notYetValid(notBefore: Date, now: Date)
    /// `iat` minus the clock tolerance is after `now`: issued in the future (check the clock).
    case issuedInFuture(issuedAt: Date, now: Date)
}
