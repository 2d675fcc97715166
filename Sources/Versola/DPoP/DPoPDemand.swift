import VersolaHTTP
import VersolaJOSE

/// A server's DPoP complaint about a request (RFC 9449 §7.1, §8, §9), read from a 400 OAuth
/// error body (authorization server) or a 401 `WWW-Authenticate: DPoP` challenge (resource).
/// A 403 with an OAuth error body is read like a 400: some providers (glewlwyd) answer 403
/// where RFC 6749 says 400, and the code, not the status, says what went wrong.
enum DPoPDemand: Sendable, Hashable {
    /// `use_dpop_nonce`: send again with the nonce from `DPoP-Nonce`.
    case nonce
    /// `invalid_dpop_proof`: the proof was refused.
    case invalidProof

    /// The complaint of `response`, or nil when it is not one.
    init?(_ response: HTTPResponse) {
        let code: String?
        switch response.status {
        case 400, 403:
            code = OAuthErrorResponse(body: response.body)?.code.rawValue
        case 401:
            code = WWWAuthenticate(headers: response.headers).challenge(scheme: "DPoP")?.error
                ?? OAuthErrorResponse(body: response.body)?.code.rawValue
        default:
            code = nil
        }
        switch code {
        case "use_dpop_nonce": self = .nonce
        case "invalid_dpop_proof": self = .invalidProof
        default: return nil
        }
    }
}
