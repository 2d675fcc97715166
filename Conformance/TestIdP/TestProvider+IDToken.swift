import Foundation
import VersolaCrypto
import VersolaJOSE

extension TestProvider {
    /// What an ID token says, before faults bend it.
    struct IDTokenContent {
        var clientID: String
        var nonce: String?
        var authTime: Date
        var acr: String?
        var accessToken: String
    }

    /// Mints an ID token (OIDC Core §2), applying any ID-token fault armed on the token endpoint.
    func mintIDToken(_ content: IDTokenContent, algorithm: SignatureAlgorithm) -> String {
        let fault = takeFault(.token) { $0.bendsIDToken }
        let issuedAt = Int64(now().timeIntervalSince1970)
        let lifetime = Int64(configuration.idTokenLifetime)
        let expiresAt = fault == .expiredIDToken ? issuedAt - 3600 : issuedAt + lifetime
        let half = SHA256.hash(Array(content.accessToken.utf8)).prefix(16)
        var claims = JSONObject()
        claims["iss"] = .string(fault == .wrongIDTokenIssuer ? issuer + "/other" : issuer)
        claims["sub"] = .string(configuration.user.subject)
        claims["aud"] = .string(fault == .wrongAudience ? "someone-else" : content.clientID)
        claims["exp"] = .integer(expiresAt)
        claims["iat"] = .integer(fault == .expiredIDToken ? issuedAt - 3600 - lifetime : issuedAt)
        claims["auth_time"] = .integer(Int64(content.authTime.timeIntervalSince1970))
        if let nonce = content.nonce {
            claims["nonce"] = .string(fault == .wrongNonce ? nonce + "-wrong" : nonce)
        } else if fault == .wrongNonce {
            claims["nonce"] = "unexpected"
        }
        if let acr = content.acr { claims["acr"] = .string(acr) }
        claims["at_hash"] = .string(fault == .wrongAccessTokenHash ? "AAAAAAAAAAAAAAAAAAAAAA" : Base64URL.encode(half))
        claims["name"] = .string(configuration.user.name)
        claims["email"] = .string(configuration.user.email)

        if fault == .algNone {
            let header = Base64URL.encode(JSONValue.object(["alg": "none", "typ": "JWT"]).serializedBytes())
            return header + "." + Base64URL.encode(JSONValue.object(claims).serializedBytes()) + "."
        }
        let (signer, keyID) = signingKeys.signer(for: algorithm, rogue: fault == .unknownSigningKey)
        let header: JSONObject = ["typ": "JWT", "kid": .string(keyID)]
        guard var token = try? JWS.sign(header: header, payload: .object(claims), signer: signer) else {
            return ""
        }
        if fault == .badSignature, let dot = token.lastIndex(of: ".") {
            var signature = (try? Base64URL.decode(token[token.index(after: dot)...])) ?? []
            if !signature.isEmpty { signature[signature.count / 2] ^= 0x5A }
            token = String(token[...dot]) + Base64URL.encode(signature)
        }
        return token
    }
}

extension TestFault {
    /// Faults that change the ID token rather than the whole answer.
    var bendsIDToken: Bool {
        switch self {
        case .unknownSigningKey, .badSignature, .algNone, .wrongNonce, .wrongAudience, .expiredIDToken,
            .wrongIDTokenIssuer, .wrongAccessTokenHash:
            true
        default: false
        }
    }
}
