import VersolaCrypto

/// Why a JSON Web Key (RFC 7517) or key set was rejected.
public enum JWKError: Error, Sendable, Hashable {
    /// The text is not JSON.
    case invalidJSON(JSONError)
    /// The key (or key set) is not a JSON object.
    case notAnObject
    /// A required member is absent (`kty`, `n`, `e`, `crv`, `x`, `y`, or a set's `keys`).
    case missingMember(String)
    /// A member has the wrong JSON type, is not strict base64url, or has the wrong length.
    case invalidMember(String)
    /// A `kty` this library does not verify with (for example `oct`: symmetric keys are never used).
    case unsupportedKeyType(String)
    /// A `crv` this library does not support for the key type.
    case unsupportedCurve(String)
    /// The crypto layer refused the key material (for example an EC point not on its curve).
    case invalidKeyMaterial(CryptoError)
}
