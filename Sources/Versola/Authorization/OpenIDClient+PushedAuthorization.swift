import VersolaHTTP
import Foundation
import VersolaJOSE

extension OpenIDClient {
    /// RFC 9126: the push carries every parameter (`dpop_jkt` included, D4) and, with DPoP, a
    /// proof; a refusal is a configuration error before any browser opens (E11).
    ///
    /// Provider quirk (seen with glewlwyd): with nonces mandatory, its PAR endpoint refuses a
    /// proof without a nonce (`403 invalid_dpop_proof`, or `use_dpop_nonce`) but sends no
    /// `DPoP-Nonce` to retry with. A proof is optional at PAR (RFC 9449 §10.1: `dpop_jkt`
    /// alone binds the request), so when the push is still refused for its proof after the
    /// sender's one-time retries, it is sent once more without a proof; `dpop_jkt` still binds
    /// the code to the key, and the token endpoint checks the proof (with its nonce) later.
    func push(
        _ query: [(String, String)], to endpoint: URL, metadata: ProviderMetadata, budget: OperationBudget, dpopKey: DPoPKey?
    )
        async throws(VersolaError) -> String
    {
        let body = FormBody(query.map { FormBody.Field(name: $0.0, value: $0.1) })
        let request = ClientAuthentication(configuration: configuration, metadata: metadata)
            .request(to: endpoint, form: body)
        var response = try await sender.send(request, kind: .read, budget: budget, dpopKey: dpopKey)
        if dpopKey != nil, let demand = DPoPDemand(response) {
            let reason = demand == .nonce ? "demanded a DPoP nonce without sending one" : "refused the DPoP proof"
            environment.log.record(VersolaLogEvent(.info, "the PAR endpoint \(reason); pushing with dpop_jkt only"))
            response = try await sender.send(request, kind: .read, budget: budget)
        }
        guard (200..<300).contains(response.status) else {
            throw .configuration(
                .authorizationRejected(
                    "the provider refused the pushed request (status \(response.status))",
                    provider: OAuthErrorResponse(body: response.body)?.providerError))
        }
        guard let document = try? JSONValue(parsing: response.body), let requestURI = document["request_uri"]?.string,
            !requestURI.isEmpty
        else {
            throw .recoverable(
                .server(ServerFailure(status: response.status, failedRequests: budget.failedRequests, elapsed: budget.elapsed)))
        }
        return requestURI
    }
}
