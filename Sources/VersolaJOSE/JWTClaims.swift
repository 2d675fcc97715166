import Foundation

/// The claims set of a JWT (RFC 7519) with typed accessors for the registered claims and the
/// checks ID-token validation needs (`iss`, `aud`, `exp`, `nbf`, `iat`), driven by an injected time.
///
/// ```swift
/// let claims = try JWTClaims(payload: jws.payload)
/// try claims.validate(.init(issuer: issuer, audience: clientID), now: now)
/// claims.nonce  // compare with the one sent
/// ```
public struct JWTClaims: Sendable, Hashable {
    /// All claims in payload order.
    public let object: JSONObject

    /// Wraps a claims object.
    public init(_ object: JSONObject) { self.object = object }

    /// Parses the JSON payload of a JWS.
    /// - Throws: `JWTClaimError.payloadNotAnObject` when the payload is not a JSON object.
    public init(payload: [UInt8]) throws(JWTClaimError) {
        guard case .object(let object) = try? JSONValue(parsing: payload) else { throw .payloadNotAnObject }
        self.object = object
    }

    /// Any claim by name.
    public subscript(name: String) -> JSONValue? { object[name] }

    /// `iss`, when a string.
    public var issuer: String? { object["iss"]?.string }
    /// `sub`, when a string.
    public var subject: String? { object["sub"]?.string }
    /// `aud` as a list (a single string becomes one element); nil when absent or malformed.
    public var audiences: [String]? { try? audienceList() }
    /// `azp`, when a string.
    public var authorizedParty: String? { object["azp"]?.string }
    /// `nonce`, when a string.
    public var nonce: String? { object["nonce"]?.string }
    /// `jti`, when a string.
    public var jwtID: String? { object["jti"]?.string }
    /// `exp`, when a number in ``NumericDate``'s range.
    public var expiration: Date? { try? date("exp") }
    /// `nbf`, when a number.
    public var notBefore: Date? { try? date("nbf") }
    /// `iat`, when a number.
    public var issuedAt: Date? { try? date("iat") }

    /// Checks `iss`, `aud`, `exp`, `nbf` and `iat` against `requirements` at time `now`.
    ///
    /// With tolerance `t`: expired when `now ≥ exp + t`; not yet valid when `now < nbf − t`;
    /// issued in the future when `iat > now + t`.
    /// - Throws: the first failing check as a `JWTClaimError`.
    public func validate(_ requirements: JWTClaimRequirements, now: Date) throws(JWTClaimError) {
        guard let issuerValue = object["iss"] else { throw .missingClaim("iss") }
        guard let issuer = issuerValue.string else { throw .invalidClaim("iss") }
        guard issuer == requirements.issuer else {
            throw .issuerMismatch(expected: requirements.issuer, actual: issuer)
        }

        guard let audiences = try audienceList() else { throw .missingClaim("aud") }
        guard audiences.contains(requirements.audience) else {
            throw .audienceMismatch(expected: requirements.audience, actual: audiences)
        }

        let tolerance = requirements.toleranceSeconds
        let current = now.timeIntervalSince1970
        if let expiration = try date("exp") {
            if current >= expiration.timeIntervalSince1970 + tolerance { throw .expired(expiration: expiration, now: now) }
        } else if requirements.requiresExpiration {
            throw .missingClaim("exp")
        }
        if let notBefore = try date("nbf"), current < notBefore.timeIntervalSince1970 - tolerance {
            throw .notYetValid(notBefore: notBefore, now: now)
        }
        if let issuedAt = try date("iat") {
            if issuedAt.timeIntervalSince1970 > current + tolerance { throw .issuedInFuture(issuedAt: issuedAt, now: now) }
        } else if requirements.requiresIssuedAt {
            throw .missingClaim("iat")
        }
    }

    /// A NumericDate claim (``NumericDate``): nil when absent; `invalidClaim(name)` when it is
    /// not a number, or one outside the years 1 to 9999.
    public func date(_ name: String) throws(JWTClaimError) -> Date? {
        guard let value = object[name] else { return nil }
        guard let seconds = NumericDate.seconds(value) else { throw .invalidClaim(name) }
        return Date(timeIntervalSince1970: seconds)
    }

    /// `aud` as a list: nil when absent; an error when neither a string nor an array of strings.
    private func audienceList() throws(JWTClaimError) -> [String]? {
        guard let value = object["aud"] else { return nil }
        if let single = value.string { return [single] }
        guard let elements = value.array else { throw .invalidClaim("aud") }
        var audiences: [String] = []
        for element in elements {
            guard let audience = element.string else { throw .invalidClaim("aud") }
            audiences.append(audience)
        }
        return audiences
    }
}

extension JWTClaims: CustomStringConvertible, CustomDebugStringConvertible {
    /// The claim names with string values redacted.
    public var description: String { "JWTClaims(\(object.description))" }

    /// Same as ``description``.
    public var debugDescription: String { description }
}
