/// A failure inside Versola's cryptography. Carries no key material.
public enum CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Key parameters that do not form a usable key (wrong size, not on the curve, too short).
    case invalidKey(String)
    /// Input that cannot be processed (wrong length, out of range).
    case invalidInput(String)
    /// OpenSSL refused an operation that should have worked.
    case operationFailed(String)
    /// Sealed data failed authentication: a wrong key, or a changed byte.
    case authenticationFailed

    public var description: String {
        switch self {
        case .invalidKey(let reason): "invalid key: \(reason)"
        case .invalidInput(let reason): "invalid input: \(reason)"
        case .operationFailed(let operation): "cryptographic operation failed: \(operation)"
        case .authenticationFailed: "authentication of sealed data failed"
        }
    }
}
