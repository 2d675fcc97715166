import Foundation
import VersolaCrypto
import VersolaHTTP
import VersolaJOSE

/// Why a DPoP proof was not accepted.
enum DPoPRejection: Error, Sendable, Hashable {
    /// No proof where one is required.
    case missing
    /// The proof breaks a rule of RFC 9449 §4.3 (the reason is for the request log).
    case invalid(String)
    /// The proof lacks the server's current nonce (answer `use_dpop_nonce`).
    case nonceRequired
}

/// Checks DPoP proofs the way RFC 9449 §4.3 lists, step by step.
struct DPoPProofInspector {
    /// Algorithms a proof may use: asymmetric only, never `none` or HMAC.
    static let allowedAlgorithms: Set<SignatureAlgorithm> = [.es256, .es384, .es512, .rs256, .ps256, .edDSA]

    /// How far `iat` may be from the provider's clock, either way.
    var iatWindow: TimeInterval

    /// Checks the `DPoP` header fields of a request and returns the proof key's RFC 7638
    /// thumbprint and its `jti`.
    /// - Parameters:
    ///   - fields: every `DPoP` header value (more than one is an error).
    ///   - method: the request's method (`htm`).
    ///   - url: the URL the request was sent to, normalised (`htu`).
    ///   - accessToken: the token presented with the proof, for `ath`.
    ///   - acceptedNonces: the nonces the server currently accepts; empty when none is required.
    ///   - now: the provider's time.
    func inspect(
        fields: [String], method: String, url: String, accessToken: String?, acceptedNonces: Set<String>, now: Date
    ) -> Result<(thumbprint: String, jti: String), DPoPRejection> {
        guard !fields.isEmpty else { return .failure(.missing) }
        guard fields.count == 1, let proof = fields.first else {
            return .failure(.invalid("more than one DPoP header"))
        }
        let jws: JWS
        do { jws = try JWS(compact: proof) } catch { return .failure(.invalid("not a JWS: \(error)")) }
        guard jws.type == "dpop+jwt" else { return .failure(.invalid("typ is not dpop+jwt")) }
        guard Self.allowedAlgorithms.contains(jws.algorithm) else {
            return .failure(.invalid("alg \(jws.algorithm.rawValue) not accepted"))
        }
        guard let jwkValue = jws.header["jwk"], let members = jwkValue.object else {
            return .failure(.invalid("no jwk header"))
        }
        for secret in ["d", "p", "q", "dp", "dq", "qi", "k"] where members[secret] != nil {
            return .failure(.invalid("jwk carries private key member \(secret)"))
        }
        let key: JWK
        do { key = try JWK(json: jwkValue) } catch { return .failure(.invalid("jwk unusable: \(error)")) }
        do { try jws.verify(with: key, allowedAlgorithms: Self.allowedAlgorithms) } catch {
            return .failure(.invalid("signature: \(error)"))
        }
        let claims: JWTClaims
        do { claims = try JWTClaims(payload: jws.payload) } catch { return .failure(.invalid("claims: \(error)")) }
        guard let jti = claims["jti"]?.string, !jti.isEmpty else { return .failure(.invalid("no jti")) }
        guard claims["htm"]?.string == method else { return .failure(.invalid("htm does not match")) }
        guard let htu = claims["htu"]?.string, Self.normalise(htu) == Self.normalise(url) else {
            return .failure(.invalid("htu does not match"))
        }
        guard let iat = claims["iat"]?.double ?? claims["iat"]?.int64.map(Double.init) else {
            return .failure(.invalid("no iat"))
        }
        guard abs(iat - now.timeIntervalSince1970) <= iatWindow else {
            return .failure(.invalid("iat outside the accepted window"))
        }
        if let accessToken {
            let expected = Base64URL.encode(SHA256.hash(Array(accessToken.utf8)))
            guard claims["ath"]?.string == expected else { return .failure(.invalid("ath does not match the token")) }
        }
        if !acceptedNonces.isEmpty {
            guard let nonce = claims["nonce"]?.string, acceptedNonces.contains(nonce) else {
                return .failure(.nonceRequired)
            }
        }
        return .success((key.thumbprint(), jti))
    }

    /// `htu` comparison form (RFC 9449 §4.3 step 9): no query or fragment, scheme and host
    /// lowercased, default port dropped.
    static func normalise(_ url: String) -> String {
        var text = Substring(url)
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<cut] }
        guard let schemeEnd = text.range(of: "://") else { return String(text) }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<authorityEnd].lowercased()
        if scheme == "https", authority.hasSuffix(":443") { authority.removeLast(4) }
        if scheme == "http", authority.hasSuffix(":80") { authority.removeLast(3) }
        let path = rest[authorityEnd...]
        return "\(scheme)://\(authority)\(path.isEmpty ? "/" : path)"
    }

    /// The string-valued claims of a proof, without checking anything (for the request log).
    static func stringClaims(of proof: String) -> [String: String] {
        guard let jws = try? JWS(compact: proof), let claims = try? JWTClaims(payload: jws.payload) else { return [:] }
        var result: [String: String] = [:]
        for member in claims.object {
            if let text = member.value.string { result[member.name] = text }
        }
        return result
    }
}
