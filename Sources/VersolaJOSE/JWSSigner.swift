import VersolaCrypto

/// Produces JWS signatures for one algorithm. Build one from a private key with ``es256(_:)``
/// or ``rsa(_:algorithm:)``, or wrap any other signer (a hardware key) with the initializer.
public struct JWSSigner: Sendable {
    /// The algorithm the signatures are made with; it becomes the header's `alg`.
    public let algorithm: SignatureAlgorithm
    private let signature: @Sendable ([UInt8]) throws(CryptoError) -> [UInt8]

    /// Creates a signer from a function returning the JWS signature bytes of a message
    /// (raw `r||s` for ECDSA).
    public init(algorithm: SignatureAlgorithm, sign: @escaping @Sendable ([UInt8]) throws(CryptoError) -> [UInt8]) {
        self.algorithm = algorithm
        signature = sign
    }

    /// An ES256 signer (DPoP proofs, RFC 9449).
    public static func es256(_ key: P256PrivateKey) -> JWSSigner {
        JWSSigner(algorithm: .es256) { message throws(CryptoError) in try key.signES256(message) }
    }

    /// An RSA signer for an RS* or PS* algorithm.
    public static func rsa(_ key: RSAPrivateKey, algorithm: SignatureAlgorithm = .rs256) -> JWSSigner {
        JWSSigner(algorithm: algorithm) { message throws(CryptoError) in try key.sign(message, algorithm: algorithm) }
    }

    /// Signs `message`.
    /// - Throws: the signer's `CryptoError`.
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try signature(message)
    }
}
