import VersolaCrypto

/// `es256_sign_per_s` and `rs256_verify_per_s` (each beside its `openssl speed` loop, run
/// alternately in this process), `aes_gcm_seal_open_4k_per_s`.
func cryptoBenchmarks(_ report: BenchReport) async throws {
    let message = Array(String(repeating: "a", count: 200).utf8)
    let peer = try OpenSSLPeer()

    let ecKey = try P256PrivateKey()
    await report.paired(
        "es256_sign_per_s", peer: "peer_ecdsap256_sign_per_s", target: nil,
        ours: { (try? ecKey.signES256(message).count) ?? 0 }, peer: peer.ecdsaSign)

    let rsaKey = try RSAPrivateKey(bits: 2048)
    let rsaSignature = try rsaKey.sign(message, algorithm: .rs256)
    let verifier = try VerificationKey.rsa(modulus: rsaKey.modulus, exponent: rsaKey.exponent)
    await report.paired(
        "rs256_verify_per_s", peer: "peer_rsa2048_verify_per_s", target: nil,
        ours: { verifier.verify(signature: rsaSignature, message: message, algorithm: .rs256) ? 1 : 0 },
        peer: peer.rsaVerify)

    let record = [UInt8](repeating: 7, count: 4096)
    let key = SymmetricKey.generate()
    report.rate("aes_gcm_seal_open_4k_per_s") {
        guard let box = try? AESGCM.seal(record, key: key) else { return 0 }
        return (try? AESGCM.open(box, key: key).count) ?? 0
    }
}
