import CVersolaSystem
import Glibc

/// Cryptographically secure random bytes from the kernel's generator (`getrandom`).
///
/// Short requests (a `jti`, a `state`, a nonce, up to 64 bytes) are served from a page of the
/// kernel's bytes kept per thread, so a DPoP proof does not pay a system call for its `jti`.
/// The page is wiped by the kernel in a forked child (`MADV_WIPEONFORK`), so parent and child
/// never hand out the same bytes, and each byte is wiped from it as it is handed out; where the
/// kernel cannot wipe on fork, every request is its own `getrandom` call.
public enum SecureRandom {
    /// `count` random bytes.
    ///
    /// The kernel's generator only fails before it is seeded at boot (`getrandom` then waits)
    /// or when the call is not available; no secret Versola could make would be safe then,
    /// so that failure stops the process rather than returning predictable bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "negative byte count")
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(buffer)
            initialized = count
        }
    }

    /// Fills `buffer` with random bytes (a proof's `jti` is drawn into scratch space this way).
    public static func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        guard let start = buffer.baseAddress, buffer.count > 0 else { return }
        let failure = versola_random_bytes(start, buffer.count)
        precondition(failure == 0, "the system random generator failed (errno \(failure))")
    }
}

/// Compares two byte strings in time that depends only on their lengths, never on
/// where they first differ. Use it for MACs, tags, `state` and other secrets.
public func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    if a.isEmpty { return true }
    return a.withUnsafeBytes { left in
        b.withUnsafeBytes { right in
            CRYPTO_memcmp(left.baseAddress, right.baseAddress, a.count) == 0
        }
    }
}
