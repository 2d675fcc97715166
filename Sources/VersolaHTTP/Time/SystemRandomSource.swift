import VersolaCrypto

/// The real random source: OpenSSL's DRBG (``SecureRandom``), seeded by the kernel and reseeded
/// after a fork. Suitable for secrets; it makes no system call per use, which matters for a
/// `jti` on every DPoP proof.
public struct SystemRandomSource: RandomSource {
    /// Creates the source.
    public init() {}

    /// `count` bytes from the generator.
    public func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        return SecureRandom.bytes(count)
    }
}
