import CVersolaSystem

/// Password-based key derivation: turns a passphrase and a salt into key bytes, slowly on
/// purpose, so that guessing passphrases offline stays expensive.
///
/// ```swift
/// let salt = SecureRandom.bytes(16)
/// let bytes = try KeyDerivation.scrypt(
///     passphrase: Array("correct horse".utf8), salt: salt, parameters: .interactive, length: 32)
/// let key = try SymmetricKey(bytes: bytes)
/// ```
public enum KeyDerivation {
    /// The cost parameters of scrypt (RFC 7914).
    public struct ScryptParameters: Sendable, Hashable, CustomStringConvertible {
        /// The CPU/memory cost `N`: a power of two greater than 1.
        public var cost: UInt64
        /// The block size `r`.
        public var blockSize: UInt64
        /// The parallelisation `p`.
        public var parallelism: UInt64

        /// N = 2^15, r = 8, p = 1: about 32 MiB of memory and a fraction of a second,
        /// the usual choice for unlocking something interactively.
        public static let interactive = ScryptParameters(cost: 1 << 15, blockSize: 8, parallelism: 1)

        /// Creates parameters. They are checked when used, not here.
        public init(cost: UInt64, blockSize: UInt64, parallelism: UInt64) {
            self.cost = cost
            self.blockSize = blockSize
            self.parallelism = parallelism
        }

        /// The memory scrypt needs for these parameters, in bytes (with some headroom), or
        /// nil when it overflows.
        var memoryNeeded: UInt64? {
            // V takes 128·r·N bytes and B takes 128·r·p; OpenSSL adds a little on top.
            let (perBlock, o1) = blockSize.multipliedReportingOverflow(by: 128)
            let (v, o2) = perBlock.multipliedReportingOverflow(by: cost &+ 2)
            let (b, o3) = perBlock.multipliedReportingOverflow(by: parallelism)
            let (sum, o4) = v.addingReportingOverflow(b)
            guard !(o1 || o2 || o3 || o4) else { return nil }
            return sum.addingReportingOverflow(1 << 20).overflow ? nil : sum + (1 << 20)
        }

        public var description: String { "scrypt(N=\(cost), r=\(blockSize), p=\(parallelism))" }
    }

    /// The most memory ``scrypt(passphrase:salt:parameters:length:)`` agrees to use: 256 MiB.
    public static let maximumScryptMemory: UInt64 = 256 << 20

    /// The most output bytes either function produces in one call.
    public static let maximumLength = 1024

    /// scrypt (RFC 7914) through OpenSSL's `EVP_PBE_scrypt`.
    ///
    /// - Parameters:
    ///   - passphrase: the secret, as bytes (UTF-8 for text).
    ///   - salt: a random, non-secret value stored beside what the key protects.
    ///   - parameters: the cost; ``ScryptParameters/interactive`` for unlocking.
    ///   - length: how many bytes to derive (1 to ``maximumLength``).
    /// - Throws: `CryptoError.invalidInput` for parameters scrypt rejects (N not a power of
    ///   two, too much memory, a bad length); `CryptoError.operationFailed` when OpenSSL fails.
    public static func scrypt(passphrase: [UInt8], salt: [UInt8], parameters: ScryptParameters, length: Int)
        throws(CryptoError) -> [UInt8]
    {
        guard (1...maximumLength).contains(length) else { throw .invalidInput("derived key length out of range") }
        let n = parameters.cost
        guard n > 1, n & (n - 1) == 0 else { throw .invalidInput("scrypt N must be a power of two above 1") }
        guard parameters.blockSize > 0, parameters.parallelism > 0 else {
            throw .invalidInput("scrypt r and p must be positive")
        }
        guard let memory = parameters.memoryNeeded, memory <= maximumScryptMemory else {
            throw .invalidInput("scrypt parameters need more than \(maximumScryptMemory >> 20) MiB")
        }
        var output = [UInt8](repeating: 0, count: length)
        let status = withInputs(passphrase, salt) { pass, passCount, saltBytes, saltCount in
            output.withUnsafeMutableBufferPointer { out in
                EVP_PBE_scrypt(
                    pass, passCount, saltBytes, saltCount, n, parameters.blockSize, parameters.parallelism, memory,
                    out.baseAddress, length)
            }
        }
        guard status == 1 else {
            ERR_clear_error()
            throw .operationFailed("scrypt")
        }
        return output
    }

    /// PBKDF2 with HMAC-SHA-256 (RFC 8018 §5.2) through OpenSSL's `PKCS5_PBKDF2_HMAC`.
    ///
    /// - Parameters:
    ///   - passphrase: the secret, as bytes (UTF-8 for text).
    ///   - salt: a random, non-secret value stored beside what the key protects.
    ///   - iterations: the cost; at least 600 000 for protecting stored secrets.
    ///   - length: how many bytes to derive (1 to ``maximumLength``).
    /// - Throws: `CryptoError.invalidInput` for a non-positive count or a bad length;
    ///   `CryptoError.operationFailed` when OpenSSL fails.
    public static func pbkdf2SHA256(passphrase: [UInt8], salt: [UInt8], iterations: Int, length: Int)
        throws(CryptoError) -> [UInt8]
    {
        guard (1...maximumLength).contains(length) else { throw .invalidInput("derived key length out of range") }
        guard iterations > 0, iterations <= Int(Int32.max) else { throw .invalidInput("iteration count out of range") }
        guard passphrase.count <= Int(Int32.max), salt.count <= Int(Int32.max) else {
            throw .invalidInput("passphrase or salt too long")
        }
        var output = [UInt8](repeating: 0, count: length)
        let digest = FetchedDigests.shared.sha256
        let status = withInputs(passphrase, salt) { pass, passCount, saltBytes, saltCount in
            output.withUnsafeMutableBufferPointer { out in
                PKCS5_PBKDF2_HMAC(
                    pass, Int32(passCount), saltBytes, Int32(saltCount), Int32(iterations), digest, Int32(length),
                    out.baseAddress)
            }
        }
        guard status == 1 else {
            ERR_clear_error()
            throw .operationFailed("PBKDF2")
        }
        return output
    }

    /// Runs `body` with non-NULL pointers to both inputs and their real lengths (OpenSSL
    /// wants a valid pointer even for an empty passphrase or salt).
    private static func withInputs<R>(
        _ passphrase: [UInt8], _ salt: [UInt8],
        _ body: (UnsafePointer<CChar>, Int, UnsafePointer<UInt8>, Int) -> R
    ) -> R {
        let passStorage = passphrase.isEmpty ? [0] : passphrase
        let saltStorage = salt.isEmpty ? [0] : salt
        return passStorage.withUnsafeBufferPointer { pass in
            saltStorage.withUnsafeBufferPointer { saltBytes in
                pass.withMemoryRebound(to: CChar.self) { chars in
                    // Both buffers hold at least one byte, so the base addresses exist.
                    guard let passBase = chars.baseAddress, let saltBase = saltBytes.baseAddress else {
                        preconditionFailure("non-empty buffers have base addresses")
                    }
                    return body(passBase, passphrase.count, saltBase, salt.count)
                }
            }
        }
    }
}
