import CVersolaSystem

/// The two loops `openssl speed ecdsap256 rsa2048` times, run in this process: an ECDSA P-256
/// signature over a 20-byte buffer and an RSA-2048 PKCS #1 verification of a 36-byte one, each
/// with a key context initialised once (what `openssl speed` 3.0 does). Running them here lets
/// a figure alternate with its peer in short slices, so a change in the machine's speed during
/// the run (common on shared machines) moves both alike; `make bench` also prints
/// `openssl speed` itself beside these, to show that they agree.
final class OpenSSLPeer {
    private let ecKey: OpaquePointer
    private let ecContext: OpaquePointer
    private let rsaKey: OpaquePointer
    private let rsaContext: OpaquePointer
    private var buffer = [UInt8](repeating: 0x5A, count: 36)
    private var ecSignature = [UInt8](repeating: 0, count: 80)
    private let rsaSignature: [UInt8]

    init() throws {
        guard let ecKey = versola_ec_generate("P-256"), let ecContext = EVP_PKEY_CTX_new_from_pkey(nil, ecKey, nil),
            EVP_PKEY_sign_init(ecContext) == 1,
            let rsaKey = versola_rsa_generate(2048), let rsaContext = EVP_PKEY_CTX_new_from_pkey(nil, rsaKey, nil),
            EVP_PKEY_verify_init(rsaContext) == 1
        else { throw PeerError.setup }
        self.ecKey = ecKey
        self.ecContext = ecContext
        self.rsaKey = rsaKey
        self.rsaContext = rsaContext
        // The signature the verification loop checks, made once with the private key.
        guard let signing = EVP_PKEY_CTX_new_from_pkey(nil, rsaKey, nil) else { throw PeerError.setup }
        defer { EVP_PKEY_CTX_free(signing) }
        var signature = [UInt8](repeating: 0, count: 256)
        var length = signature.count
        guard EVP_PKEY_sign_init(signing) == 1,
            EVP_PKEY_sign(signing, &signature, &length, buffer, buffer.count) == 1, length == 256
        else { throw PeerError.setup }
        rsaSignature = signature
        guard rsaVerify() == 1 else { throw PeerError.setup }
    }

    deinit {
        EVP_PKEY_CTX_free(ecContext)
        EVP_PKEY_CTX_free(rsaContext)
        EVP_PKEY_free(ecKey)
        EVP_PKEY_free(rsaKey)
    }

    /// One ECDSA P-256 signature of 20 bytes, as `openssl speed ecdsap256` signs.
    func ecdsaSign() -> Int {
        var length = ecSignature.count
        let status = EVP_PKEY_sign(ecContext, &ecSignature, &length, buffer, 20)
        return status == 1 ? length : 0
    }

    /// One RSA-2048 PKCS #1 verification of 36 bytes, as `openssl speed rsa2048` verifies.
    func rsaVerify() -> Int {
        Int(EVP_PKEY_verify(rsaContext, rsaSignature, rsaSignature.count, buffer, 36))
    }

    enum PeerError: Error { case setup }
}

extension BenchReport {
    /// Measures `ours` and `peer` in alternating slices of about 20 ms of process CPU time
    /// until each has had `seconds`, then prints both rates per CPU second and their ratio
    /// beside `target`. Alternating makes the ratio hold even when the machine's speed drifts
    /// during the run, which sequential runs minutes apart do not.
    func paired(
        _ name: String, peer peerName: String, target: Double?,
        ours: () async throws -> Int, peer: () async throws -> Int
    ) async rethrows {
        var sink = 0
        for _ in 0..<16 {
            sink &+= try await ours()
            sink &+= try await peer()
        }
        var totals = (ours: (count: 0, seconds: 0.0), peer: (count: 0, seconds: 0.0))
        let slice = 0.02
        while totals.ours.seconds < seconds || totals.peer.seconds < seconds {
            for side in 0..<2 {
                let start = processCPUSeconds()
                var count = 0
                var now = start
                repeat {
                    for _ in 0..<8 { sink &+= try await (side == 0 ? ours() : peer()) }
                    count += 8
                    now = processCPUSeconds()
                } while now - start < slice
                if side == 0 {
                    totals.ours.count += count
                    totals.ours.seconds += now - start
                } else {
                    totals.peer.count += count
                    totals.peer.seconds += now - start
                }
            }
        }
        let ourRate = Double(totals.ours.count) / totals.ours.seconds
        let peerRate = Double(totals.peer.count) / totals.peer.seconds
        print(name, ourRate, unit: "ops/s")
        print(peerName, peerRate, unit: "ops/s")
        let goal = target.map { " (target >= \(String(format: "%.2f", $0)))" } ?? ""
        Swift.print("ratio \(name) / \(peerName): \(String(format: "%.2f", ourRate / peerRate))\(goal)")
        blackHole(sink)
    }
}
