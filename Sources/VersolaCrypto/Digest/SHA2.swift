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
    let md = FetchedDigests.shared.digest(function)
    var output = [UInt8](repeating: 0, count: function.size)
    let status: Int32 = bytes.withContiguousStorageIfAvailable { input in
        output.withUnsafeMutableBufferPointer { out in
            EVP_Digest(input.baseAddress, input.count, out.baseAddress, nil, md, nil)
        }
    } ?? Array(bytes).withUnsafeBufferPointer { input in
        output.withUnsafeMutableBufferPointer { out in
            EVP_Digest(input.baseAddress, input.count, out.baseAddress, nil, md, nil)
        }
    }
    // EVP_Digest only fails on allocation failure with a fetched digest.
    precondition(status == 1, "EVP_Digest failed")
    return output
}
