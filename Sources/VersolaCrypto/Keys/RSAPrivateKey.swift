import CVersolaSystem

/// An RSA private key: the test provider's RS256 and PS256 signing key.
///
/// ```swift
/// let key = try RSAPrivateKey(bits: 2048)
/// let signature = try key.sign(Array(signingInput.utf8), algorithm: .rs256)
/// ```
public struct RSAPrivateKey: Sendable, CustomStringConvertible {
    let key: EVPKey
    /// The big-endian modulus `n`.
    public let modulus: [UInt8]
    /// The big-endian public exponent `e`.
    public let exponent: [UInt8]

    /// Generates a key with public exponent 65537.
    /// - Parameter bits: modulus size, 2048…16384.
    /// - Throws: `CryptoError.invalidInput` for a size out of range.
    public init(bits: Int = 2048) throws(CryptoError) {
        guard bits >= VerificationKey.minimumRSABits, bits <= VerificationKey.maximumRSABits else {
            throw .invalidInput("RSA keys are 2048…16384 bits")
        }
        key = try EVPKey(versola_rsa_generate(UInt32(bits)), orThrow: .operationFailed("RSA key generation"))
        modulus = try Self.parameter(key, "n")
        exponent = try Self.parameter(key, "e")
    }

    private static func parameter(_ key: EVPKey, _ name: String) throws(CryptoError) -> [UInt8] {
        var bytes: UnsafeMutablePointer<UInt8>?
        var count = 0
        guard versola_rsa_param(key.pointer, name, &bytes, &count) == 1, let bytes else {
            throw .operationFailed("reading RSA parameter \(name)")
        }
        defer { versola_openssl_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: count))
    }

    /// The public half, for verifying this key's signatures.
    public var verificationKey: VerificationKey {
        VerificationKey(kind: .rsa(bits: bitLength(modulus.drop { $0 == 0 })), key: key)
    }

    /// Signs `message` with an `RS*` or `PS*` algorithm.
    /// - Throws: `CryptoError.invalidInput` for a non-RSA algorithm.
    public func sign(_ message: [UInt8], algorithm: SignatureAlgorithm) throws(CryptoError) -> [UInt8] {
        guard algorithm.isRSA else { throw .invalidInput("\(algorithm.rawValue) is not an RSA algorithm") }
        return try digestSign(key: key, message: message, algorithm: algorithm)
    }

    public var description: String { "RSAPrivateKey(\(modulus.count * 8) bits, <redacted>)" }
}
