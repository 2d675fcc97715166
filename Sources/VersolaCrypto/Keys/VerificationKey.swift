import CVersolaSystem

/// A public key that verifies JWS signatures.
///
/// Which algorithms a key may verify follows from the key alone ("the algorithm comes from
/// the key"): RSA keys of at least 2048 bits verify `RS*` and `PS*`, an EC key only the
/// ECDSA algorithm of its own curve, an Ed25519 key only `EdDSA`.
///
/// ```swift
/// let key = try VerificationKey.ec(curve: .p256, x: x, y: y)
/// let valid = key.verify(signature: signature, message: signingInput, algorithm: .es256)
/// ```
public struct VerificationKey: Sendable {
    /// What kind of key this is.
    public enum Kind: Sendable, Hashable {
        /// RSA with a modulus of this many bits.
        case rsa(bits: Int)
        /// ECDSA on this curve.
        case ec(ECCurve)
        /// Ed25519.
        case ed25519
    }

    /// Smallest RSA modulus accepted, in bits (RFC 7518 §3.3 requires 2048).
    public static let minimumRSABits = 2048
    /// Largest RSA modulus accepted, in bits (bounds the work a hostile key can cause).
    public static let maximumRSABits = 16384

    /// What kind of key this is.
    public let kind: Kind
    let key: EVPKey

    init(kind: Kind, key: EVPKey) {
        self.kind = kind
        self.key = key
    }

    /// An RSA public key from its big-endian modulus and public exponent.
    /// - Throws: `CryptoError.invalidKey` for a modulus outside 2048…16384 bits or an
    ///   even, too small or too large exponent.
    public static func rsa(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) -> VerificationKey {
        let n = modulus.drop { $0 == 0 }
        let e = exponent.drop { $0 == 0 }
        let bits = bitLength(n)
        guard bits >= minimumRSABits, bits <= maximumRSABits else {
            throw .invalidKey("RSA modulus of \(bits) bits is outside \(minimumRSABits)…\(maximumRSABits)")
        }
        guard !e.isEmpty, e.count <= 8, let last = e.last, last & 1 == 1, bitLength(e) >= 2 else {
            throw .invalidKey("RSA public exponent is not an odd number above 1 of at most 64 bits")
        }
        let nBytes = Array(n)
        let eBytes = Array(e)
        let pointer = versola_rsa_public_from_ne(nBytes, nBytes.count, eBytes, eBytes.count)
        let key = try EVPKey(pointer, orThrow: .invalidKey("RSA parameters rejected"))
        return VerificationKey(kind: .rsa(bits: bits), key: key)
    }

    /// An EC public key from its affine coordinates, each exactly the curve's coordinate size.
    /// - Throws: `CryptoError.invalidKey` for a wrong length or a point not on the curve.
    public static func ec(curve: ECCurve, x: [UInt8], y: [UInt8]) throws(CryptoError) -> VerificationKey {
        let size = curve.coordinateSize
        guard x.count == size, y.count == size else {
            throw .invalidKey("\(curve.rawValue) coordinates must be \(size) bytes each")
        }
        let pointer = versola_ec_public_from_xy(curve.rawValue, x, y, size)
        let key = try EVPKey(pointer, orThrow: .invalidKey("point is not on \(curve.rawValue)"))
        return VerificationKey(kind: .ec(curve), key: key)
    }

    /// An Ed25519 public key from its 32 raw bytes (RFC 8037 `x`).
    /// - Throws: `CryptoError.invalidKey` for a wrong length.
    public static func ed25519(publicKey: [UInt8]) throws(CryptoError) -> VerificationKey {
        guard publicKey.count == 32 else { throw .invalidKey("Ed25519 public keys are 32 bytes") }
        let pointer = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, publicKey, 32)
        let key = try EVPKey(pointer, orThrow: .invalidKey("Ed25519 public key rejected"))
        return VerificationKey(kind: .ed25519, key: key)
    }

    /// Whether this key can verify `algorithm` at all.
    public func supports(_ algorithm: SignatureAlgorithm) -> Bool {
        switch kind {
        case .rsa: algorithm.isRSA
        case .ec(let curve): algorithm == curve.algorithm
        case .ed25519: algorithm == .edDSA
        }
    }

    /// Verifies a JWS signature (raw `r || s` for ECDSA, as JWS encodes it).
    ///
    /// Returns false for a wrong signature, a malformed one (wrong length, `r` or `s`
    /// zero or not below the group order), or an algorithm this key does not support.
    /// Never throws and never traps on any input.
    public func verify(signature: [UInt8], message: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
        signature.withUnsafeBufferPointer { signature in
            message.withUnsafeBufferPointer { message in verify(signature: signature, message: message, algorithm: algorithm) }
        }
    }

    /// ``verify(signature:message:algorithm:)-([UInt8],_,_)`` over bytes held elsewhere (a token's
    /// signing input where it lies in the token, a signature decoded into scratch space).
    public func verify(
        signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>, algorithm: SignatureAlgorithm
    ) -> Bool {
        guard supports(algorithm) else { return false }
        switch kind {
        case .ec(let curve):
            guard let der = Self.derSignature(rawSignature: signature, size: curve.coordinateSize),
                let function = algorithm.digest
            else {
                return false
            }
            return der.withUnsafeBufferPointer { der in
                withDigest(function, of: message) { prehashedVerify(key: key, signature: der, digest: $0, algorithm: algorithm) }
            }
        case .rsa(let bits):
            guard signature.count == (bits + 7) / 8, let function = algorithm.digest else { return false }
            return withDigest(function, of: message) {
                prehashedVerify(key: key, signature: signature, digest: $0, algorithm: algorithm)
            }
        case .ed25519:
            guard signature.count == 64 else { return false }
            return digestVerify(signature: signature, message: message, algorithm: algorithm)
        }
    }

    /// EdDSA verifies the whole message in one shot (no separate digest step).
    private func digestVerify(
        signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>, algorithm: SignatureAlgorithm
    ) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key.pointer) == 1 else {
            ERR_clear_error()
            return false
        }
        let status = EVP_DigestVerify(context, signature.baseAddress, signature.count, message.baseAddress, message.count)
        if status != 1 { ERR_clear_error() }
        return status == 1
    }

    /// Converts a JWS `r || s` signature to the DER form OpenSSL verifies, or nil when
    /// its length is wrong.
    static func derSignature(rawSignature: UnsafeBufferPointer<UInt8>, size: Int) -> [UInt8]? {
        guard rawSignature.count == 2 * size, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let (r, s) = (
            BN_bin2bn(rawSignature.baseAddress, Int32(size), nil), BN_bin2bn(rawSignature.baseAddress! + size, Int32(size), nil)
        )
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }
}

/// The number of significant bits in a big-endian byte string without leading zeros.
func bitLength(_ bytes: some Collection<UInt8>) -> Int {
    guard let first = bytes.first else { return 0 }
    return (bytes.count - 1) * 8 + (8 - first.leadingZeroBitCount)
}

extension VerificationKey {
    /// The public half of a freshly generated EC key on `curve`. Used by tests and
    /// benchmarks that need a key of a curve Versola never signs with.
    static func generatedEC(curve: ECCurve) throws(CryptoError) -> VerificationKey {
        let key = try EVPKey(versola_ec_generate(curve.rawValue), orThrow: .operationFailed("EC key generation"))
        return VerificationKey(kind: .ec(curve), key: key)
    }
}
