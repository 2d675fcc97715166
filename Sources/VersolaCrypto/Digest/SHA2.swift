import CVersolaSystem

/// SHA-256 (FIPS 180-4).
///
/// ```swift
/// let digest = SHA256.hash(Array("abc".utf8))   // 32 bytes
/// ```
public enum SHA256 {
    /// The digest of `bytes`, 32 bytes.
    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        oneShotDigest(.sha256, bytes)
    }

    /// The digest of a string's UTF-8, 32 bytes, read where the string keeps it (no generic
    /// entry between modules: an access token's hash is taken on every ID token).
    public static func hash(utf8 text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { oneShotDigest(.sha256, $0) }
    }
}

/// SHA-384 (FIPS 180-4).
public enum SHA384 {
    /// The digest of `bytes`, 48 bytes.
    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        oneShotDigest(.sha384, bytes)
    }
}

/// SHA-512 (FIPS 180-4).
public enum SHA512 {
    /// The digest of `bytes`, 64 bytes.
    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        oneShotDigest(.sha512, bytes)
    }
}

func oneShotDigest(_ function: DigestFunction, _ bytes: some Sequence<UInt8>) -> [UInt8] {
    bytes.withContiguousStorageIfAvailable { oneShotDigest(function, $0) }
        ?? Array(bytes).withUnsafeBufferPointer { oneShotDigest(function, $0) }
}

/// ``oneShotDigest(_:_:)-(_,Sequence<UInt8>)`` of bytes in a buffer, with no generic entry.
func oneShotDigest(_ function: DigestFunction, _ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: function.size) { output, initialized in
        digest(function, of: bytes, into: output)
        initialized = function.size
    }
}

/// `function`'s digest of `bytes` into `output`, which holds at least `function.size` bytes:
/// no array is made (a token's signing input is hashed into scratch space).
func digest(_ function: DigestFunction, of bytes: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) {
    precondition(output.count >= function.size, "digest output too small")
    let status = versola_sha2(Int32(function.size * 8), bytes.baseAddress, bytes.count, output.baseAddress)
    // The low-level SHA-2 functions cannot fail for the three sizes asked for here.
    precondition(status == 1, "SHA-2 digest failed")
}

/// Runs `body` with `function`'s digest of `bytes`, held in scratch space (a token's signing
/// input and an access token are hashed this way, with no array).
func withDigest<R>(
    _ function: DigestFunction, of bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R
) -> R {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: function.size) { output in
        digest(function, of: bytes, into: output)
        return body(UnsafeBufferPointer(output))
    }
}
