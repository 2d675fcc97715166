import VersolaCrypto

/// Why a compact JWS (RFC 7515) was rejected, or could not be produced.
public enum JWSError: Error, Sendable, Hashable {
    /// One of the three parts of the compact serialization.
    public enum Part: String, Sendable, Hashable {
        /// The protected header.
        case header
        /// The payload.
        case payload
        /// The signature.
        case signature
    }

    /// The text does not have exactly three dot-separated parts.
    case wrongNumberOfParts(Int)
    /// A part is not strict base64url.
    case invalidBase64URL(Part, Base64URLError)
    /// The header (or the payload, when read as JSON) is not JSON.
    case invalidJSON(Part, JSONError)
    /// The header is JSON but not an object.
    case headerNotAnObject
    /// The header has no `alg`.
    case missingAlgorithm
    /// A header parameter has the wrong JSON type (named).
    case invalidHeaderParameter(String)
    /// `alg` is `none`: unsigned tokens are always rejected.
    case algorithmNone
    /// `alg` names an algorithm this library never verifies (for example `HS256`: HMAC with a
    /// public key is the algorithm-confusion attack).
    case unsupportedAlgorithm(String)
    /// The caller's allow-list does not contain the token's algorithm.
    case algorithmNotAllowed(SignatureAlgorithm)
    /// `crit` is malformed: not a non-empty array of distinct strings, names a parameter RFC 7515
    /// defines, or names a parameter absent from the header.
    case invalidCriticalParameters
    /// `crit` lists extensions the caller did not declare understood.
    case unsupportedCriticalParameters([String])
    /// No key of the set has the token's `kid` (`nil` when the token names none and the set has
    /// no key for its algorithm). An unknown `kid` is the signal to refetch the key set.
    case keyNotFound(keyID: String?)
    /// The key (or every key with the token's `kid`) cannot verify this algorithm: wrong key type,
    /// wrong curve, RSA too short, or its `use`/`alg`/`key_ops` forbid it.
    case keyDoesNotPermitAlgorithm(SignatureAlgorithm)
    /// The signature does not verify.
    case invalidSignature
    /// The signer's algorithm differs from the header's `alg`.
    case signerAlgorithmMismatch(header: String, signer: SignatureAlgorithm)
    /// The signer failed.
    case signingFailed(CryptoError)
}
