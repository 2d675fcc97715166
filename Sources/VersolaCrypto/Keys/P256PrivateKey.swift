import CVersolaSystem

/// An EC P-256 private key: the DPoP key of a grant (SPEC D1) and the test provider's
/// ES256 signing key.
///
/// Its `description` never shows the private scalar.
///
/// ```swift
/// let key = try P256PrivateKey()
/// let signature = try key.signES256(Array(signingInput.utf8))   // 64 bytes, r || s
/// let stored = key.rawRepresentation                            // seal this before storing
/// ```
public struct P256PrivateKey: Sendable, CustomStringConvertible {
    let key: EVPKey
    /// The public point's affine coordinates, 32 bytes each.
    public let publicKey: (x: [UInt8], y: [UInt8])

    /// Generates a fresh key from the system's secure random source.
    /// - Throws: `CryptoError.operationFailed` when OpenSSL cannot generate one.
    public init() throws(CryptoError) {
        let key = try EVPKey(versola_ec_generate("P-256"), orThrow: .operationFailed("P-256 key generation"))
        try self.init(key: key)
    }

    /// Restores a key from its 32-byte private scalar, as `rawRepresentation` returned it.
    /// - Throws: `CryptoError.invalidKey` for a wrong length, zero, or a scalar not below
    ///   the group order.
    public init(rawRepresentation: [UInt8]) throws(CryptoError) {
        guard rawRepresentation.count == 32 else { throw .invalidKey("P-256 private keys are 32 bytes") }
        let key = try EVPKey(
            versola_ec_private_from_d("P-256", rawRepresentation, 32),
            orThrow: .invalidKey("P-256 private scalar out of range"))
        try self.init(key: key)
    }

    private init(key: EVPKey) throws(CryptoError) {
        var x = [UInt8](repeating: 0, count: 32)
        var y = [UInt8](repeating: 0, count: 32)
        guard versola_ec_public_xy(key.pointer, &x, &y, 32) == 1 else {
            ERR_clear_error()
            throw .invalidKey("P-256 public point unavailable")
        }
        self.key = key
        self.publicKey = (x, y)
    }

    /// The 32-byte private scalar. A secret: seal it before it leaves memory.
    public var rawRepresentation: [UInt8] {
        var d = [UInt8](repeating: 0, count: 32)
        guard versola_ec_private_d(key.pointer, &d, 32) == 1 else {
            // Every key of this type was built with its scalar, so reading it cannot fail.
            preconditionFailure("P-256 private scalar unreadable")
        }
        return d
    }

    /// The public half, for verifying this key's signatures.
    public var verificationKey: VerificationKey {
        VerificationKey(kind: .ec(.p256), key: key)
    }

    /// Signs `message` with ECDSA P-256 and SHA-256, returning the 64-byte `r || s`
    /// form JWS uses (RFC 7518 §3.4).
    /// - Throws: `CryptoError.operationFailed` when OpenSSL fails.
    public func signES256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let der = try prehashedSign(key: key, digest: SHA256.hash(message))
        return try rawSignature(der: der, size: 32)
    }

    /// ``signES256(_:)`` over bytes held elsewhere, writing the 64-byte `r || s` into
    /// `signature`: the digest and the DER form stay in scratch space, no array is made (a DPoP
    /// proof signs its signing input where it is being written).
    /// - Throws: `CryptoError.operationFailed` when OpenSSL fails.
    public func signES256(
        _ message: UnsafeBufferPointer<UInt8>, into signature: UnsafeMutableBufferPointer<UInt8>
    ) throws(CryptoError) {
        try signES256(message, startingWith: nil, into: signature)
    }

    /// ``signES256(_:into:)`` of a message that begins with `prefix`, whose hashing is resumed
    /// from the state saved for it (a DPoP proof's signing input always starts with its key's
    /// header). `message` must begin with the bytes `prefix` was made from.
    package func signES256(
        _ message: UnsafeBufferPointer<UInt8>, startingWith prefix: SHA256Prefix?,
        into signature: UnsafeMutableBufferPointer<UInt8>
    ) throws(CryptoError) {
        precondition(signature.count >= 64, "an ES256 signature is 64 bytes")
        precondition(message.count >= prefix?.count ?? 0, "the message is shorter than its prefix")
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32 + 160) { scratch throws(CryptoError) in
            let digest = UnsafeMutableBufferPointer(rebasing: scratch[0..<32])
            if let prefix {
                prefix.finish(UnsafeBufferPointer(rebasing: message[prefix.count...]), into: digest)
            } else {
                // The low-level SHA-256 cannot fail for this size.
                precondition(versola_sha2(256, message.baseAddress, message.count, digest.baseAddress) == 1, "SHA-256 failed")
            }
            let der = UnsafeMutableBufferPointer(rebasing: scratch[32...])
            let length = try prehashedSign(key: key, digest: UnsafeBufferPointer(digest), into: der)
            try rawSignature(der: UnsafeBufferPointer(rebasing: der[0..<length]), size: 32, into: signature)
        }
    }

    public var description: String { "P256PrivateKey(<redacted>)" }
}
