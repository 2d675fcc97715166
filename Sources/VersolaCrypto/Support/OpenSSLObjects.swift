import CVersolaSystem
import Synchronization

/// Owns one `EVP_PKEY` and frees it when the last reference goes away.
///
/// OpenSSL keys are safe to use from several threads at once for signing and
/// verification as long as nobody mutates them; Versola never mutates a key after
/// building it, which is what makes the `@unchecked Sendable` sound.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Key contexts already initialised for one purpose (slot 0 signing, then verifying with
    /// one algorithm: ``SignatureAlgorithm/verifySlot``), reused across operations, kept as
    /// address bit patterns (pointers are not Sendable). Each is taken out while in use, so
    /// concurrent callers never share one; this object owns and frees them.
    private let idleContexts = Mutex<[[Int]]>(Array(repeating: [], count: SignatureAlgorithm.contextSlotCount))
    private static let maximumIdleContextsPerPurpose = 8

    /// Takes ownership of `pointer`, or throws `failure` when it is NULL.
    init(_ pointer: OpaquePointer?, orThrow failure: CryptoError) throws(CryptoError) {
        guard let pointer else {
            ERR_clear_error()
            throw failure
        }
        self.pointer = pointer
    }

    deinit {
        for address in idleContexts.withLock({ $0.joined() }) {
            EVP_PKEY_CTX_free(OpaquePointer(bitPattern: address))
        }
        EVP_PKEY_free(pointer)
    }

    /// Runs `body` with a key context of pool slot `slot` (named `purpose` in errors),
    /// prepared by `prepare` (called only on a fresh context). A context comes back to the
    /// pool only when `body` reports it usable again; otherwise it is freed.
    func withContext<R>(
        slot: Int,
        purpose: StaticString,
        prepare: (OpaquePointer) -> Bool,
        _ body: (OpaquePointer) throws(CryptoError) -> (result: R, reusable: Bool)
    ) throws(CryptoError) -> R {
        let context: OpaquePointer
        if let address = idleContexts.withLock({ $0[slot].popLast() }), let idle = OpaquePointer(bitPattern: address) {
            context = idle
        } else {
            guard let fresh = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else {
                throw .operationFailed("allocating a key context")
            }
            guard prepare(fresh) else {
                EVP_PKEY_CTX_free(fresh)
                ERR_clear_error()
                throw .operationFailed("\(purpose) setup")
            }
            context = fresh
        }
        var reusable = false
        defer {
            let address = Int(bitPattern: context)
            let kept = reusable && idleContexts.withLock { idle -> Bool in
                guard idle[slot].count < Self.maximumIdleContextsPerPurpose else { return false }
                idle[slot].append(address)
                return true
            }
            if !kept { EVP_PKEY_CTX_free(context) }
        }
        let outcome = try body(context)
        reusable = outcome.reusable
        return outcome.result
    }
}

/// Message digests fetched once from the default provider and kept for the life of
/// the process. Explicit fetching avoids a by-name lookup on every signature.
final class FetchedDigests: @unchecked Sendable {
    static let shared = FetchedDigests()

    let sha256: OpaquePointer
    let sha384: OpaquePointer
    let sha512: OpaquePointer
    let aes256gcm: OpaquePointer

    private init() {
        // The default provider always has these; a missing one means a broken
        // OpenSSL installation, which no caller could recover from.
        guard let sha256 = EVP_MD_fetch(nil, "SHA256", nil),
            let sha384 = EVP_MD_fetch(nil, "SHA384", nil),
            let sha512 = EVP_MD_fetch(nil, "SHA512", nil),
            let gcm = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)
        else {
            preconditionFailure("OpenSSL's default provider lacks SHA-2 or AES-256-GCM")
        }
        self.sha256 = sha256
        self.sha384 = sha384
        self.sha512 = sha512
        self.aes256gcm = gcm
    }

    func digest(_ function: DigestFunction) -> OpaquePointer {
        switch function {
        case .sha256: sha256
        case .sha384: sha384
        case .sha512: sha512
        }
    }
}

/// The SHA-2 functions JOSE uses.
enum DigestFunction: Sendable {
    case sha256, sha384, sha512

    /// The DER DigestInfo that precedes this digest in an RSASSA-PKCS1-v1_5 encoded message
    /// (RFC 8017 §9.2, note 1): the algorithm's OID with NULL parameters, then the digest's
    /// OCTET STRING header.
    var digestInfoPrefix: [UInt8] {
        switch self {
        case .sha256: Self.sha256DigestInfo
        case .sha384: Self.sha384DigestInfo
        case .sha512: Self.sha512DigestInfo
        }
    }

    private static let sha256DigestInfo: [UInt8] = [
        0x30, 0x31, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20,
    ]
    private static let sha384DigestInfo: [UInt8] = [
        0x30, 0x41, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02, 0x05, 0x00, 0x04, 0x30,
    ]
    private static let sha512DigestInfo: [UInt8] = [
        0x30, 0x51, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03, 0x05, 0x00, 0x04, 0x40,
    ]

    var size: Int {
        switch self {
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }
}
