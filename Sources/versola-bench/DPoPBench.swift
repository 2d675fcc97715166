import Foundation
import Versola
import VersolaHTTP

/// `dpop_proof_per_s`: one complete DPoP proof as sent on a resource request: a fresh `jti`,
/// `htm`, normalised `htu`, `iat`, `ath` of a realistic access token and a server nonce,
/// ES256-signed and serialized (compare with `openssl speed ecdsap256` sign/s).
///
/// It alternates with `openssl speed`'s ECDSA P-256 signing loop (``OpenSSLPeer``), each
/// counted per CPU second, so the ratio holds on a machine shared with other work.
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
    let peer = try OpenSSLPeer()
    await report.paired("dpop_proof_per_s", peer: "peer_ecdsap256_sign_per_s", target: 0.92, ours: proof, peer: peer.ecdsaSign)
}
