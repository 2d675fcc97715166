import VersolaCrypto

/// `es256_sign_per_s`, `rs256_verify_per_s`, `aes_gcm_seal_open_4k_per_s`.
func cryptoBenchmarks(_ report: BenchReport) async throws {
    let message = Array(String(repeating: "a", count: 200).utf8)

    let ecKey = try P256PrivateKey()
    report.rate("es256_sign_per_s") { (try? ecKey.signES256(message).count) ?? 0 }

    let rsaKey = try RSAPrivateKey(bits: 2048)
    let rsaSignature = try rsaKey.sign(message, algorithm: .rs256)
    let verifier = try VerificationKey.rsa(modulus: rsaKey.modulus, exponent: rsaKey.exponent)
    report.rate("rs256_verify_per_s") {
        verifier.verify(signature: rsaSignature, message: message, algorithm: .rs256) ? 1 : 0
    }

    let record = [UInt8](repeating: 7, count: 4096)
    let key = SymmetricKey.generate()
    report.rate("aes_gcm_seal_open_4k_per_s") {
        guard let box = try? AESGCM.seal(record, key: key) else { return 0 }
        return (try? AESGCM.open(box, key: key).count) ?? 0
    }
}
