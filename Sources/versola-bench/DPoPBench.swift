import Foundation
import Versola

/// `dpop_proof_per_s`: one complete DPoP proof as sent on a resource request: a fresh `jti`,
/// `htm`, normalised `htu`, `iat`, `ath` of a realistic access token and a server nonce,
/// ES256-signed and serialized (compare with `openssl speed ecdsap256` sign/s).
///
/// `dpop_proof_cpu_per_s` is the same work per second of this thread's CPU time. `openssl
/// speed` counts user CPU time too, so on a machine shared with other work this is the
/// figure that compares like with like; the wall-clock one drops with the load.
func dpopBenchmarks(_ report: BenchReport) async throws {
    let key = try DPoPKey.generate()
    guard let url = URL(string: "https://api.example.com/v1/accounts/248289761001/transactions?limit=50&cursor=abc")
    else { return }
    let accessToken = String(repeating: "eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9", count: 20)
    let nonce = "eyJ7S_zG.eyJH0-Z.HX4w-7v"
    let random = SystemRandomSource()
    let proof = {
        (try? DPoPProof.make(
            key: key, method: .get, url: url, accessToken: accessToken, nonce: nonce, issuedAt: Date(), random: random))?
            .utf8.count ?? 0
    }
    report.rate("dpop_proof_per_s", proof)

    var sink = 0
    let start = threadCPUSeconds()
    var iterations = 0
    while threadCPUSeconds() - start < report.seconds {
        for _ in 0..<32 { sink &+= proof() }
        iterations += 32
    }
    report.print("dpop_proof_cpu_per_s", Double(iterations) / (threadCPUSeconds() - start), unit: "ops/s")
    blackHole(sink)
}

/// The CPU time this thread has used, in seconds.
private func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
