import CVersolaSystem

/// Cryptographically secure random bytes from OpenSSL's DRBG, seeded by the kernel.
public enum SecureRandom {
    /// `count` random bytes.
    ///
    /// OpenSSL's generator only fails when the kernel cannot seed it, a state in which
    /// no secret Versola could make would be safe, so that failure stops the process
    /// rather than returning predictable bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "negative byte count")
        var output = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return output }
        let status = output.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        precondition(status == 1, "the system random generator failed")
        return output
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
