/// The real random source: the system CSPRNG (`getrandom` on Linux) through
/// `SystemRandomNumberGenerator`. Suitable for secrets.
public struct SystemRandomSource: RandomSource {
    /// Creates the source.
    public init() {}

    /// `count` bytes from the system CSPRNG.
    public func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        var generator = SystemRandomNumberGenerator()
        var result = [UInt8]()
        result.reserveCapacity(count)
        while result.count < count {
            var word = generator.next()
            for _ in 0..<min(8, count - result.count) {
                result.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return result
    }
}
