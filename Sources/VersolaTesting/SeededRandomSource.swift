import VersolaHTTP
import Synchronization

/// A deterministic random source for tests: the same seed gives the same bytes.
/// Never use it for anything secret.
///
/// ```swift
/// let random = SeededRandomSource(seed: 42)
/// let jitter = random.unitInterval()   // the same on every run
/// ```
public final class SeededRandomSource: RandomSource {
    private let state: Mutex<UInt64>

    /// Creates a source from a seed.
    public init(seed: UInt64) {
        state = Mutex(seed)
    }

    /// The next `count` bytes of the seeded sequence (SplitMix64).
    public func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        return state.withLock { seed in
            var result = [UInt8]()
            result.reserveCapacity(count)
            while result.count < count {
                var word = Self.splitMix(&seed)
                for _ in 0..<min(8, count - result.count) {
                    result.append(UInt8(truncatingIfNeeded: word))
                    word >>= 8
                }
            }
            return result
        }
    }

    private static func splitMix(_ seed: inout UInt64) -> UInt64 {
        seed &+= 0x9E37_79B9_7F4A_7C15
        var z = seed
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
