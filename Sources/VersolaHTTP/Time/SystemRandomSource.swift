import VersolaCrypto

/// The real random source: the kernel's generator through ``SecureRandom``. Suitable for
/// secrets: short values (a DPoP proof's `jti`) come from a per-thread page of the kernel's
/// bytes that a forked child finds wiped, so parent and child never repeat each other's bytes.
public struct SystemRandomSource: RandomSource {
    /// Creates the source.
    public init() {}

    /// `count` bytes from the generator.
    public func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        return SecureRandom.bytes(count)
    }

    /// Fills `buffer` from the generator, in place.
    public func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        SecureRandom.fill(buffer)
    }
}
