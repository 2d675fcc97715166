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
    let bits = Int32(function.size * 8)
    let output = [UInt8](unsafeUninitializedCapacity: function.size) { out, initialized in
        let status: Int32 = bytes.withContiguousStorageIfAvailable { input in
            versola_sha2(bits, input.baseAddress, input.count, out.baseAddress)
        } ?? Array(bytes).withUnsafeBufferPointer { input in
            versola_sha2(bits, input.baseAddress, input.count, out.baseAddress)
        }
        // The low-level SHA-2 functions cannot fail for the three sizes asked for here.
        precondition(status == 1, "SHA-2 digest failed")
        initialized = function.size
    }
    return output
}
