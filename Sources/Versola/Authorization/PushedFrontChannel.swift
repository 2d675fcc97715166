import VersolaHTTP
/// The front-channel parameters of a pushed authorization request (RFC 9126 §4).
///
/// RFC 9126 needs only `client_id` and `request_uri`. Providers that validate the front
/// channel as a full OpenID Connect authorization request before they look up the pushed one
/// refuse that short form (idpyoidc 5: "Missing required attribute 'response_type'", then
/// `redirect_uri`, then "consent in prompt" for `offline_access`). OpenID Connect allows the
/// request's parameters next to a `request_uri` as long as they are the same (Core §6.1,
/// §6.2; it asks for `response_type` and `scope` there), so the pushed `response_type`,
/// `redirect_uri`, `scope` and `prompt` are repeated unchanged. Nothing secret or
/// request-specific (state, nonce, PKCE, `dpop_jkt`) leaves the pushed request.
enum PushedFrontChannel {
    /// The names repeated from the pushed request, in this order.
    static let repeated = ["response_type", "redirect_uri", "scope", "prompt"]

    /// `client_id`, `request_uri`, then those of ``repeated`` that were pushed, as pushed.
    /// - Parameters:
    ///   - clientID: the client's id.
    ///   - requestURI: the `request_uri` the push returned.
    ///   - pushed: the pairs that were pushed.
    static func pairs(clientID: String, requestURI: String, pushed: [(String, String)]) -> [(String, String)] {
        var pairs = [("client_id", clientID), ("request_uri", requestURI)]
        for name in repeated {
            if let value = pushed.first(where: { $0.0 == name })?.1 { pairs.append((name, value)) }
        }
        return pairs
    }
}
