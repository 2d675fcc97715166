import CVersolaSystem

/// Signs `message` with `key` using a digest (or none, for EdDSA) and optional PSS
/// padding, returning OpenSSL's native signature encoding (DER for ECDSA).
func digestSign(key: EVPKey, message: [UInt8], algorithm: SignatureAlgorithm) throws(CryptoError) -> [UInt8] {
    guard let context = EVP_MD_CTX_new() else { throw .operationFailed("allocating a digest context") }
    defer { EVP_MD_CTX_free(context) }
    let md = algorithm.digest.map { FetchedDigests.shared.digest($0) }
    var keyContext: OpaquePointer?
    guard EVP_DigestSignInit(context, &keyContext, md, nil, key.pointer) == 1 else {
        ERR_clear_error()
        throw .operationFailed("\(algorithm.rawValue) signing setup")
    }
    if algorithm.isPSS, let md, let digest = algorithm.digest {
        guard EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
            EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, Int32(digest.size)) == 1,
            EVP_PKEY_CTX_set_rsa_mgf1_md(keyContext, md) == 1
        else {
            ERR_clear_error()
            throw .operationFailed("\(algorithm.rawValue) padding setup")
        }
    }
    var length = 0
    guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
        ERR_clear_error()
        throw .operationFailed("\(algorithm.rawValue) signature size")
    }
    var signature = [UInt8](repeating: 0, count: length)
    let status = signature.withUnsafeMutableBufferPointer { buffer in
        EVP_DigestSign(context, buffer.baseAddress, &length, message, message.count)
    }
    guard status == 1 else {
        ERR_clear_error()
        throw .operationFailed("\(algorithm.rawValue) signing")
    }
    signature.removeSubrange(length...)
    return signature
}

/// Converts a DER ECDSA signature (as OpenSSL makes it) to the fixed-size `r || s` form JWS
/// uses, read in place: no BIGNUMs are allocated for it.
func rawSignature(der: [UInt8], size: Int) throws(CryptoError) -> [UInt8] {
    var raw = [UInt8](repeating: 0, count: 2 * size)
    try der.withUnsafeBufferPointer { der throws(CryptoError) in
        try raw.withUnsafeMutableBufferPointer { raw throws(CryptoError) in try rawSignature(der: der, size: size, into: raw) }
    }
    return raw
}

/// ``rawSignature(der:size:)`` into `raw`, which holds `2 * size` bytes.
func rawSignature(der: UnsafeBufferPointer<UInt8>, size: Int, into raw: UnsafeMutableBufferPointer<UInt8>) throws(CryptoError) {
    // SEQUENCE { INTEGER r, INTEGER s }; for P-256 and P-384 every length fits one byte.
    precondition(raw.count >= 2 * size, "raw signature buffer too small")
    var index = 0
    func byte() throws(CryptoError) -> UInt8 {
        guard index < der.count else { throw .operationFailed("decoding an ECDSA signature") }
        defer { index += 1 }
        return der[index]
    }
    guard try byte() == 0x30 else { throw .operationFailed("decoding an ECDSA signature") }
    let sequenceLength = Int(try byte())
    guard sequenceLength < 0x80, index + sequenceLength == der.count else {
        throw .operationFailed("decoding an ECDSA signature")
    }
    for half in 0..<2 {
        guard try byte() == 0x02 else { throw .operationFailed("decoding an ECDSA signature") }
        var length = Int(try byte())
        guard length > 0, length < 0x80, index + length <= der.count else {
            throw .operationFailed("decoding an ECDSA signature")
        }
        // A positive INTEGER may carry one leading zero byte; what is left must fit `size`.
        while length > size, der[index] == 0 {
            index += 1
            length -= 1
        }
        guard length <= size else { throw .operationFailed("encoding an ECDSA signature") }
        let offset = half * size + (size - length)
        for position in 0..<(size - length) { raw[half * size + position] = 0 }
        for position in 0..<length { raw[offset + position] = der[index + position] }
        index += length
    }
    guard index == der.count else { throw .operationFailed("decoding an ECDSA signature") }
}

/// Signs an already computed digest with `key` (ECDSA), returning DER. Hashing first and
/// signing with a reused, already initialised key context skips the per-signature
/// context setup that `EVP_DigestSign` repeats.
func prehashedSign(key: EVPKey, digest: [UInt8]) throws(CryptoError) -> [UInt8] {
    var signature = [UInt8](repeating: 0, count: 160)
    let length = try signature.withUnsafeMutableBufferPointer { output throws(CryptoError) in
        try digest.withUnsafeBufferPointer { digest throws(CryptoError) in try prehashedSign(key: key, digest: digest, into: output) }
    }
    signature.removeSubrange(length...)
    return signature
}

/// ``prehashedSign(key:digest:)`` into `output` (160 bytes hold any signature of Versola's
/// curves); returns the DER signature's length.
func prehashedSign(
    key: EVPKey, digest: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>
) throws(CryptoError) -> Int {
    try key.withContext(slot: 0, purpose: "signing", prepare: { EVP_PKEY_sign_init($0) == 1 }) {
        context throws(CryptoError) -> (Int, Bool) in
        var length = output.count
        let status = EVP_PKEY_sign(context, output.baseAddress, &length, digest.baseAddress, digest.count)
        guard status == 1, length <= output.count else {
            ERR_clear_error()
            throw .operationFailed("signing")
        }
        return (length, true)
    }
}

/// Verifies `signature` (DER for ECDSA) over `digest` with a reused key context set up
/// for `algorithm`'s padding and hash. False on any mismatch or error.
///
/// RSASSA-PKCS1-v1_5 is checked as RFC 8017 §8.2.2 states it: the signature's encoded message
/// must be exactly the one made from the digest (its DigestInfo, then the digest). The
/// context compares the whole decrypted block with that encoding, as OpenSSL does with a
/// digest set, without building the encoding anew for every signature.
func prehashedVerify(
    key: EVPKey, signature: UnsafeBufferPointer<UInt8>, digest: UnsafeBufferPointer<UInt8>, algorithm: SignatureAlgorithm
) -> Bool {
    guard let function = algorithm.digest, digest.count == function.size else { return false }
    let md = FetchedDigests.shared.digest(function)
    let prepare = { (context: OpaquePointer) -> Bool in
        guard EVP_PKEY_verify_init(context) == 1 else { return false }
        guard algorithm.isRSA else { return true }
        if algorithm.isPSS {
            return EVP_PKEY_CTX_set_signature_md(context, md) == 1
                && EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING) == 1
                && EVP_PKEY_CTX_set_rsa_pss_saltlen(context, Int32(function.size)) == 1
                && EVP_PKEY_CTX_set_rsa_mgf1_md(context, md) == 1
        }
        return EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
    }
    let verified = try? key.withContext(slot: algorithm.verifySlot, purpose: "verification", prepare: prepare) {
        context throws(CryptoError) -> (Bool, Bool) in
        let status: Int32
        if algorithm.isRSA, !algorithm.isPSS {
            let prefix = function.digestInfoPrefix
            status = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: prefix.count + digest.count) { encoded in
                _ = UnsafeMutableBufferPointer(rebasing: encoded[..<prefix.count]).initialize(from: prefix)
                _ = UnsafeMutableBufferPointer(rebasing: encoded[prefix.count...]).initialize(from: digest)
                return EVP_PKEY_verify(context, signature.baseAddress, signature.count, encoded.baseAddress, encoded.count)
            }
        } else {
            status = EVP_PKEY_verify(context, signature.baseAddress, signature.count, digest.baseAddress, digest.count)
        }
        if status != 1 { ERR_clear_error() }
        // A context that saw an error is not trusted again; a clean mismatch (0) is fine.
        return (status == 1, status >= 0)
    }
    return verified ?? false
}
