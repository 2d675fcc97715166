/// Where the engine draws randomness: jitter now, `state`/`nonce`/PKCE bytes later.
/// Injected so tests can be deterministic.
public protocol RandomSource: Sendable {
    /// `count` random bytes (an empty array for a count of zero or less).
    func bytes(_ count: Int) -> [UInt8]

    /// Fills `buffer` with random bytes. The default copies ``bytes(_:)``; a source that can
    /// write in place (``SystemRandomSource``) spares the array, as a DPoP proof's `jti` is
    /// drawn on every request.
    func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>)
}

extension RandomSource {
    public func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        let drawn = bytes(buffer.count)
        precondition(drawn.count == buffer.count, "a random source gave \(drawn.count) bytes for \(buffer.count)")
        _ = buffer.initialize(from: drawn)
    }

    /// A random 64-bit value built from eight of ``bytes(_:)``.
    public func nextUInt64() -> UInt64 {
        bytes(8).reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
    }

    /// A random number in `0 ..< 1`, with 53 bits of precision.
    public func unitInterval() -> Double {
        Double(nextUInt64() >> 11) / Double(UInt64(1) << 53)
    }
}
