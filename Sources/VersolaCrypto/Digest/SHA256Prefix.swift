import CVersolaSystem

/// The SHA-256 state after bytes that begin many messages, hashed once: a digest of such a
/// message hashes only the rest (a DPoP key's proofs all start with its header).
package struct SHA256Prefix: Sendable {
    /// How many bytes the prefix has.
    package let count: Int
    private let state: [UInt8]

    /// The state after hashing `prefix`.
    package init(_ prefix: [UInt8]) {
        count = prefix.count
        state = [UInt8](unsafeUninitializedCapacity: Int(VERSOLA_SHA256_STATE_SIZE)) { buffer, initialized in
            // The low-level SHA-256 cannot fail.
            precondition(versola_sha256_start(buffer.baseAddress, prefix, prefix.count) == 1, "SHA-256 failed")
            initialized = buffer.count
        }
    }

    /// Writes the digest of the prefix followed by `rest` into `digest` (32 bytes).
    package func finish(_ rest: UnsafeBufferPointer<UInt8>, into digest: UnsafeMutableBufferPointer<UInt8>) {
        precondition(digest.count >= 32, "a SHA-256 digest is 32 bytes")
        let status = state.withUnsafeBufferPointer { state in
            versola_sha256_finish(state.baseAddress, rest.baseAddress, rest.count, digest.baseAddress)
        }
        precondition(status == 1, "SHA-256 failed")
    }
}
