import CVersolaSystem

/// A 256-bit key for AES-256-GCM. Its `description` never shows the key.
public struct SymmetricKey: Sendable, Hashable, CustomStringConvertible {
    /// The raw key bytes. A secret.
    public let bytes: [UInt8]

    /// Wraps 32 existing key bytes.
    /// - Throws: `CryptoError.invalidKey` for any other length.
    public init(bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count == 32 else { throw .invalidKey("AES-256 keys are 32 bytes") }
        self.bytes = bytes
    }

    /// A fresh random key.
    public static func generate() -> SymmetricKey {
        SymmetricKey(unchecked: SecureRandom.bytes(32))
    }

    private init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var description: String { "SymmetricKey(<redacted>)" }
}

/// AES-256-GCM authenticated encryption with a random 96-bit nonce per message.
///
/// A sealed box is `nonce (12) || ciphertext || tag (16)`.
///
/// ```swift
/// let key = SymmetricKey.generate()
/// let box = try AESGCM.seal(Array("secret".utf8), key: key, authenticating: Array("profile".utf8))
/// let plain = try AESGCM.open(box, key: key, authenticating: Array("profile".utf8))
/// ```
public enum AESGCM {
    /// Bytes of nonce at the front of a sealed box.
    public static let nonceSize = 12
    /// Bytes of authentication tag at the end of a sealed box.
    public static let tagSize = 16

    /// Encrypts and authenticates `plaintext`, also authenticating (not encrypting) `aad`.
    /// - Throws: `CryptoError.operationFailed` when OpenSSL fails.
    public static func seal(_ plaintext: [UInt8], key: SymmetricKey, authenticating aad: [UInt8] = [])
        throws(CryptoError) -> [UInt8]
    {
        try seal(plaintext, key: key, nonce: SecureRandom.bytes(nonceSize), authenticating: aad)
    }

    /// Seals with a caller-chosen nonce. Only for known-answer tests: reusing a nonce with
    /// one key destroys GCM's security.
    static func seal(_ plaintext: [UInt8], key: SymmetricKey, nonce: [UInt8], authenticating aad: [UInt8])
        throws(CryptoError) -> [UInt8]
    {
        let context = try CipherContext()
        let cipher = FetchedDigests.shared.aes256gcm
        guard EVP_EncryptInit_ex2(context.pointer, cipher, key.bytes, nonce, nil) == 1 else {
            throw .operationFailed("AES-GCM setup")
        }
        var output = nonce + [UInt8](repeating: 0, count: plaintext.count + tagSize)
        var produced: Int32 = 0
        let ok = output.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            let body = base + nonceSize
            var length: Int32 = 0
            if !aad.isEmpty {
                guard EVP_EncryptUpdate(context.pointer, nil, &length, aad, Int32(aad.count)) == 1 else { return false }
            }
            if !plaintext.isEmpty {
                guard EVP_EncryptUpdate(context.pointer, body, &length, plaintext, Int32(plaintext.count)) == 1 else {
                    return false
                }
                produced = length
            }
            guard EVP_EncryptFinal_ex(context.pointer, body + Int(produced), &length) == 1 else { return false }
            produced += length
            return EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_GET_TAG, Int32(tagSize), body + Int(produced)) == 1
        }
        guard ok, Int(produced) == plaintext.count else {
            ERR_clear_error()
            throw .operationFailed("AES-GCM encryption")
        }
        return output
    }

    /// Authenticates and decrypts a sealed box.
    /// - Throws: `CryptoError.authenticationFailed` for a wrong key, wrong `aad`, a changed
    ///   byte or a truncated box. Never returns unauthenticated plaintext.
    public static func open(_ box: [UInt8], key: SymmetricKey, authenticating aad: [UInt8] = [])
        throws(CryptoError) -> [UInt8]
    {
        guard box.count >= nonceSize + tagSize else { throw .authenticationFailed }
        let context = try CipherContext()
        let cipher = FetchedDigests.shared.aes256gcm
        let nonce = Array(box[0..<nonceSize])
        let bodyCount = box.count - nonceSize - tagSize
        var tag = Array(box[(box.count - tagSize)...])
        guard EVP_DecryptInit_ex2(context.pointer, cipher, key.bytes, nonce, nil) == 1 else {
            throw .operationFailed("AES-GCM setup")
        }
        var plaintext = [UInt8](repeating: 0, count: bodyCount)
        let ok = box.withUnsafeBufferPointer { input -> Bool in
            plaintext.withUnsafeMutableBufferPointer { out -> Bool in
                guard let inBase = input.baseAddress else { return false }
                var length: Int32 = 0
                if !aad.isEmpty {
                    guard EVP_DecryptUpdate(context.pointer, nil, &length, aad, Int32(aad.count)) == 1 else {
                        return false
                    }
                }
                var produced: Int32 = 0
                if bodyCount > 0 {
                    guard EVP_DecryptUpdate(context.pointer, out.baseAddress, &length, inBase + nonceSize, Int32(bodyCount)) == 1
                    else { return false }
                    produced = length
                }
                guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_SET_TAG, Int32(tagSize), &tag) == 1 else {
                    return false
                }
                var scratch = [UInt8](repeating: 0, count: 16)
                return EVP_DecryptFinal_ex(context.pointer, &scratch, &length) == 1 && Int(produced + length) == bodyCount
            }
        }
        guard ok else {
            ERR_clear_error()
            plaintext.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
            throw .authenticationFailed
        }
        return plaintext
    }
}

/// Owns one `EVP_CIPHER_CTX`.
private final class CipherContext {
    let pointer: OpaquePointer

    init() throws(CryptoError) {
        guard let pointer = EVP_CIPHER_CTX_new() else { throw .operationFailed("allocating a cipher context") }
        self.pointer = pointer
    }

    deinit {
        EVP_CIPHER_CTX_free(pointer)
    }
}
