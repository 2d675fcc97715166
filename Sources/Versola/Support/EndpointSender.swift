import VersolaHTTP
import Foundation

/// How the engine sends every request to the provider and to resources: through the
/// retrying client, under the operation's budget, with the access token attached in the
/// right scheme. DPoP proofs, nonces and their one-time retries (D2, D3, R3) are added
/// here, so every endpoint gets them the same way.
///
/// With a DPoP key, every attempt (the retry engine's repeats included) carries a fresh proof
/// with a new `jti` and the origin's latest nonce, and the token goes as `Authorization: DPoP`.
/// Then, per call (one logical request to one origin):
/// - a nonce demand (`400 {"error":"use_dpop_nonce"}` from an authorization server, `401` with
///   `WWW-Authenticate: DPoP error="use_dpop_nonce"` from a resource) is answered by exactly one
///   retry with the nonce; a second demand is `.recoverable(.nonceLoop)` (D3, R3);
/// - `invalid_dpop_proof` gets exactly one retry with a fresh proof; a second one is returned
///   to the caller as the answer (R3).
/// These retries are failed requests of the operation's budget like any other (R1). Every
/// response's `DPoP-Nonce` is learned for its own origin, and a nonce is only ever sent back to
/// the origin that issued it.
package struct EndpointSender: Sendable {
    /// The shared environment.
    public let environment: EngineEnvironment
    /// The DPoP nonces learned so far, per origin.
    public let nonces: DPoPNonceCache
    /// The transport options of every request (timeouts, the trusted CA file); the
    /// environment's defaults when nil.
    public let options: TransportOptions?

    /// Creates a sender.
    /// - Parameters:
    ///   - environment: the transport, clock and random source.
    ///   - nonces: the nonce cache to use (a session passes a restored one).
    ///   - options: the transport options of every request (a client passes its
    ///     configuration's); the environment's defaults when nil.
    public init(environment: EngineEnvironment, nonces: DPoPNonceCache = DPoPNonceCache(), options: TransportOptions? = nil) {
        self.environment = environment
        self.nonces = nonces
        self.options = options
    }

    /// Sends `request` for an operation.
    /// - Parameters:
    ///   - request: the request, without authorization.
    ///   - kind: what it is for (decides repeats, R4–R7).
    ///   - budget: the operation's budget (R1).
    ///   - accessToken: attached as `Authorization: Bearer`, or `Authorization: DPoP` with a key.
    ///   - dpopKey: the grant's DPoP key; every attempt then carries a proof (with `ath` when
    ///     there is an access token).
    /// - Returns: the answer the operation can use (see ``RetryingClient/send(_:kind:budget:options:)``).
    /// - Throws: `VersolaError` per the retry rules; `.recoverable(.nonceLoop)` for a nonce
    ///   demand on a retry that already carried the demanded nonce.
    public func send(
        _ request: HTTPRequest, kind: OperationKind, budget: OperationBudget, accessToken: String? = nil,
        dpopKey: DPoPKey? = nil
    ) async throws(VersolaError) -> HTTPResponse {
        let nonces = self.nonces
        var prepared = request
        // Some APIs refuse requests without one (GitHub's); an application's own value stays.
        if prepared.headers["User-Agent"] == nil { prepared.headers.set("User-Agent", VersolaVersion.userAgent) }
        if let accessToken { prepared.headers.set("Authorization", "\(dpopKey == nil ? "Bearer" : "DPoP") \(accessToken)") }
        let request = prepared
        guard let dpopKey else {
            return try await environment.http.send(
                kind: kind, budget: budget, options: options, prepare: { _ throws(VersolaError) in request },
                observe: { nonces.learn(from: $0) })
        }
        let proofs = ProofMaker(
            key: dpopKey, method: request.method.rawValue, targetURI: DPoPProof.targetURI(of: request.url),
            accessTokenHash: accessToken.map(DPoPProof.accessTokenHash), origin: request.origin,
            environment: environment, nonces: nonces)
        var nonceRetried = false
        var proofRetried = false
        while true {
            let response = try await environment.http.send(
                kind: kind, budget: budget, options: options,
                prepare: { _ throws(VersolaError) in
                    var attempt = request
                    attempt.headers.set("DPoP", try proofs.make())
                    return attempt
                },
                observe: { nonces.learn(from: $0) })
            switch DPoPDemand(response) {
            case nil:
                return response
            case .nonce:
                guard !nonceRetried else {
                    environment.log.record(VersolaLogEvent(.warning, "\(response.origin) demanded a DPoP nonce again"))
                    throw .recoverable(.nonceLoop)
                }
                // Without a nonce to send, a retry would be the same request: the caller decides.
                guard let origin = request.origin, nonces.nonce(for: origin) != nil else { return response }
                nonceRetried = true
                environment.log.record(VersolaLogEvent(.debug, "\(response.origin) demanded a DPoP nonce; retrying once"))
            case .invalidProof:
                guard !proofRetried else { return response }
                proofRetried = true
                environment.log.record(
                    VersolaLogEvent(.info, "\(response.origin) rejected a DPoP proof; retrying once with a fresh one"))
            }
        }
    }
}

/// Makes the proofs of one request: `htu`, `ath` and the header are prepared once; each call
/// draws a new `jti` and reads the origin's latest nonce and the clock.
private struct ProofMaker {
    let key: DPoPKey
    let method: String
    let targetURI: String
    let accessTokenHash: String?
    let origin: Origin?
    let environment: EngineEnvironment
    let nonces: DPoPNonceCache

    func make() throws(VersolaError) -> String {
        try DPoPProof.make(
            key: key, method: method, targetURI: targetURI, accessTokenHash: accessTokenHash,
            nonce: origin.flatMap { nonces.nonce(for: $0) }, issuedAt: environment.clock.wallClockNow,
            random: environment.random)
    }
}
