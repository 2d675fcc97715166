import Foundation
import VersolaHTTP

extension TestProvider {
    /// The outcome of checking a request's DPoP proof.
    enum ProofCheck {
        /// No proof and none required.
        case absent
        /// A valid proof by the key with this thumbprint.
        case accepted(String)
        /// Refused: answer with this.
        case rejected(HTTPServerAction)
    }

    /// Checks a proof sent to the authorization server (PAR, token): errors are `400` with
    /// `invalid_dpop_proof` or `use_dpop_nonce` (RFC 9449 §5, §8).
    func checkAuthorizationServerProof(_ request: HTTPServerRequest, url: String, endpoint: TestEndpoint, required: Bool)
        -> ProofCheck
    {
        let fields = request.headers.values("DPoP")
        if fields.isEmpty && !required { return .absent }
        if takeFault(endpoint, .demandNonceForever) {
            rotateNonce(&authorizationServerNonces)
            return .rejected(
                oauthError("use_dpop_nonce", "a fresh nonce is required", headers: nonceHeader(for: endpoint, always: true)))
        }
        if takeFault(endpoint, .invalidDPoPProof) {
            return .rejected(oauthError("invalid_dpop_proof", "the provider was told to reject this proof"))
        }
        if configuration.requireDPoPNonce, authorizationServerNonces.isEmpty { rotateNonce(&authorizationServerNonces) }
        let accepted = configuration.requireDPoPNonce ? Set(authorizationServerNonces) : []
        switch inspectProof(fields: fields, method: request.method, url: url, accessToken: nil, nonces: accepted) {
        case .success(let thumbprint): return .accepted(thumbprint)
        case .failure(.nonceRequired):
            return .rejected(
                oauthError("use_dpop_nonce", "the proof must carry the server's nonce", headers: nonceHeader(for: endpoint)))
        case .failure(.missing): return .rejected(oauthError("invalid_dpop_proof", "a DPoP proof is required"))
        case .failure(.invalid(let reason)): return .rejected(oauthError("invalid_dpop_proof", reason))
        }
    }

    /// Runs the RFC 9449 §4.3 checks and the `jti` replay cache.
    func inspectProof(fields: [String], method: String, url: String, accessToken: String?, nonces: Set<String>)
        -> Result<String, DPoPRejection>
    {
        let window = TimeInterval(configuration.dpopProofWindow)
        let inspector = DPoPProofInspector(iatWindow: window)
        let moment = now()
        switch inspector.inspect(
            fields: fields, method: method, url: url, accessToken: accessToken, acceptedNonces: nonces, now: moment)
        {
        case .failure(let rejection): return .failure(rejection)
        case .success(let (thumbprint, jti)):
            seenProofIDs = seenProofIDs.filter { moment.timeIntervalSince($0.value) <= 2 * window }
            guard seenProofIDs[jti] == nil else { return .failure(.invalid("jti was already used")) }
            seenProofIDs[jti] = moment
            return .success(thumbprint)
        }
    }

    /// A `DPoP-Nonce` header carrying the current nonce of the server behind `endpoint`,
    /// when that server requires nonces (or `always`).
    func nonceHeader(for endpoint: TestEndpoint, always: Bool = false) -> HTTPHeaders {
        if endpoint == .resource {
            guard always || configuration.resourceRequiresDPoPNonce else { return [:] }
            if resourceServerNonces.isEmpty { rotateNonce(&resourceServerNonces) }
            return ["DPoP-Nonce": resourceServerNonces[resourceServerNonces.count - 1]]
        }
        guard always || configuration.requireDPoPNonce else { return [:] }
        if authorizationServerNonces.isEmpty { rotateNonce(&authorizationServerNonces) }
        return ["DPoP-Nonce": authorizationServerNonces[authorizationServerNonces.count - 1]]
    }
}
