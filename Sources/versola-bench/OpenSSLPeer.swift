import CVersolaSystem
import Foundation

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
    /// Measures `ours` and `peer` in rounds (`VERSOLA_BENCH_ROUNDS`, default 5), each
    /// alternating the two in slices of about 20 ms of process CPU time until each has had its
    /// share of `seconds`, then prints both rates per CPU second over all rounds, and the ratio
    /// as the median of the rounds' ratios beside `target`. Alternating makes the ratio hold
    /// even when the machine's speed drifts during the run, which sequential runs minutes
    /// apart do not; the median keeps one disturbed round from moving it.
    func paired(
        _ name: String, peer peerName: String, target: Double?,
        ours: () async throws -> Int, peer: () async throws -> Int
    ) async rethrows {
        var sink = 0
        for _ in 0..<16 {
            sink &+= try await ours()
            sink &+= try await peer()
        }
        let rounds = max(1, Int(ProcessInfo.processInfo.environment["VERSOLA_BENCH_ROUNDS"] ?? "") ?? 5)
        var totals = PairedTotals()
        var ratios: [Double] = []
        for _ in 0..<rounds {
            var round = PairedTotals()
            while round.ours.seconds < seconds / Double(rounds) || round.peer.seconds < seconds / Double(rounds) {
                try await round.measureSlice(ours: true, sink: &sink, ours)
                try await round.measureSlice(ours: false, sink: &sink, peer)
            }
            ratios.append(round.oursRate / round.peerRate)
            totals.add(round)
        }
        print(name, totals.oursRate, unit: "ops/s")
        print(peerName, totals.peerRate, unit: "ops/s")
        let sorted = ratios.sorted()
        let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        let list = sorted.map { String(format: "%.3f", $0) }.joined(separator: " ")
        let goal = target.map { "; target >= \(String(format: "%.2f", $0))" } ?? ""
        Swift.print(
            "ratio \(name) / \(peerName): \(String(format: "%.3f", median)) (median of \(rounds) alternated rounds: \(list)\(goal))")
        blackHole(sink)
    }
}

/// Operations counted and process CPU seconds spent, for each side of ``BenchReport/paired(_:peer:target:ours:peer:)``.
private struct PairedTotals {
    var ours = (count: 0, seconds: 0.0)
    var peer = (count: 0, seconds: 0.0)
    var oursRate: Double { Double(ours.count) / ours.seconds }
    var peerRate: Double { Double(peer.count) / peer.seconds }

    /// Runs `body` in batches of 8 for one slice of about 20 ms and adds the count and time to a side.
    mutating func measureSlice(ours side: Bool, sink: inout Int, _ body: () async throws -> Int) async rethrows {
        let start = processCPUSeconds()
        var count = 0
        var now = start
        repeat {
            for _ in 0..<8 { sink &+= try await body() }
            count += 8
            now = processCPUSeconds()
        } while now - start < 0.02
        if side {
            ours.count += count
            ours.seconds += now - start
        } else {
            peer.count += count
            peer.seconds += now - start
        }
    }

    mutating func add(_ round: PairedTotals) {
        ours.count += round.ours.count
        ours.seconds += round.ours.seconds
        peer.count += round.peer.count
        peer.seconds += round.peer.seconds
    }
}

