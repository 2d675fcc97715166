import VersolaCrypto

/// The real random source: the kernel's generator through ``SecureRandom`` (one `getrandom`
/// call per use). Suitable for secrets; it keeps no state in the process, so a forked child
/// never repeats its parent's bytes, and it costs less than OpenSSL's DRBG for the short
/// values drawn on every request (a DPoP proof's `jti`).
public struct SystemRandomSource: RandomSource {
    /// Creates the source.
    public init() {}

    /// `count` bytes from the generator.
    public func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        return SecureRandom.bytes(count)
    }
}
