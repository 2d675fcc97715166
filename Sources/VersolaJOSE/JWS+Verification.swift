import VersolaCrypto

extension JWS {
    /// Verifies the signature with one key.
    ///
    /// The algorithm must be in `allowedAlgorithms` and permitted by the key (type, curve, RSA
    /// size, and the JWK's `use`, `alg` and `key_ops`); the header alone never decides.
    /// - Throws: `JWSError.algorithmNotAllowed`, `.keyDoesNotPermitAlgorithm` or `.invalidSignature`.
    public func verify(with key: JWK, allowedAlgorithms: Set<SignatureAlgorithm>) throws(JWSError) {
        guard allowedAlgorithms.contains(algorithm) else { throw .algorithmNotAllowed(algorithm) }
        guard key.permits(algorithm) else { throw .keyDoesNotPermitAlgorithm(algorithm) }
        guard key.verificationKey.verify(signature: signature, message: signingInput, algorithm: algorithm) else {
            throw .invalidSignature
        }
    }

    /// Verifies the signature with a bare verification key.
    /// - Throws: `JWSError.algorithmNotAllowed`, `.keyDoesNotPermitAlgorithm` or `.invalidSignature`.
    public func verify(with key: VerificationKey, allowedAlgorithms: Set<SignatureAlgorithm>) throws(JWSError) {
        guard allowedAlgorithms.contains(algorithm) else { throw .algorithmNotAllowed(algorithm) }
        guard key.supports(algorithm) else { throw .keyDoesNotPermitAlgorithm(algorithm) }
        guard key.verify(signature: signature, message: signingInput, algorithm: algorithm) else {
            throw .invalidSignature
        }
    }

    /// Verifies the signature with a key chosen from a set: the keys with the token's `kid`
    /// (every key when it has none) that permit the algorithm are tried in order.
    /// - Returns: the key that verified.
    /// - Throws: `JWSError.algorithmNotAllowed`; `.keyNotFound` when no key has the `kid` (refetch
    ///   the set once); `.keyDoesNotPermitAlgorithm` when keys with the `kid` exist but none fits
    ///   the algorithm; `.invalidSignature`.
    @discardableResult
    public func verify(using keySet: JWKSet, allowedAlgorithms: Set<SignatureAlgorithm>) throws(JWSError) -> JWK {
        guard allowedAlgorithms.contains(algorithm) else { throw .algorithmNotAllowed(algorithm) }
        let candidates: [JWK]
        switch keySet.select(keyID: keyID, algorithm: algorithm) {
        case .candidates(let keys): candidates = keys
        case .unknownKeyID(let keyID): throw .keyNotFound(keyID: keyID)
        case .noKeyForAlgorithm: throw .keyNotFound(keyID: nil)
        case .keyIDForbidsAlgorithm: throw .keyDoesNotPermitAlgorithm(algorithm)
        }
        for key in candidates
        where key.verificationKey.verify(signature: signature, message: signingInput, algorithm: algorithm) {
            return key
        }
        throw .invalidSignature
    }
}
