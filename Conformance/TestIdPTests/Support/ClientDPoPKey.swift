import Foundation
import VersolaCrypto
import VersolaJOSE

/// A client's DPoP key (ES256) and a builder of proofs, correct by default and bendable one
/// rule of RFC 9449 §4.3 at a time.
struct ClientDPoPKey: Sendable {
    let privateKey: P256PrivateKey
    let publicJWK: JWK

    init() throws {
        privateKey = try P256PrivateKey()
        publicJWK = try JWK(material: .ec(curve: .p256, x: privateKey.publicKey.x, y: privateKey.publicKey.y))
    }

    /// The RFC 7638 thumbprint (`dpop_jkt`, `cnf.jkt`).
    var thumbprint: String { publicJWK.thumbprint() }

    /// How a proof departs from a correct one.
    struct Bend: Sendable {
        /// The `typ` header; nil leaves it out.
        var type: String? = "dpop+jwt"
        /// Put the private scalar `d` into the `jwk` header.
        var leakPrivateKey = false
        /// Leave the `jwk` header out.
        var omitKey = false
        /// Name another public key in the `jwk` header than the one that signs.
        var headerKey: JWK?
        /// Flip a bit of the signature.
        var corruptSignature = false
        /// Claims to drop.
        var omitClaims: Set<String> = []
        /// Claims to replace or add.
        var claims: [String: JSONValue] = [:]
    }

    /// A signed proof for `method` on `url`, issued at `issuedAt`.
    /// - Parameters:
    ///   - accessToken: adds `ath` when given (resource requests).
    ///   - nonce: adds the server's `nonce` when given.
    ///   - jti: a fixed `jti` (for replay tests); random by default.
    func proof(
        _ method: String, _ url: String, at issuedAt: Date, accessToken: String? = nil, nonce: String? = nil,
        jti: String = Base64URL.encode(SecureRandom.bytes(16)), bend: Bend = Bend()
    ) throws -> String {
        var jwk = (bend.headerKey ?? publicJWK).jsonValue.object ?? JSONObject()
        if bend.leakPrivateKey { jwk["d"] = .string(Base64URL.encode(privateKey.rawRepresentation)) }
        var header = JSONObject()
        if let type = bend.type { header["typ"] = .string(type) }
        if !bend.omitKey { header["jwk"] = .object(jwk) }
        let payload = claims(method, url, issuedAt, accessToken, nonce, jti, bend)
        var proof = try JWS.sign(header: header, payload: .object(payload), signer: .es256(privateKey))
        if bend.corruptSignature, let dot = proof.lastIndex(of: ".") {
            var signature = try Base64URL.decode(proof[proof.index(after: dot)...])
            signature[signature.count / 2] ^= 0x01
            proof = String(proof[...dot]) + Base64URL.encode(signature)
        }
        return proof
    }

    /// A proof whose header names `algorithm` (`none`, `HS256`) with an arbitrary signature:
    /// it cannot be produced by a real signer, so it is assembled by hand.
    func unsignedProof(algorithm: String, _ method: String, _ url: String, at issuedAt: Date) -> String {
        let header: JSONValue = ["alg": .string(algorithm), "typ": "dpop+jwt", "jwk": publicJWK.jsonValue]
        let payload = claims(method, url, issuedAt, nil, nil, Base64URL.encode(SecureRandom.bytes(16)), Bend())
        let signature = algorithm == "none" ? "" : Base64URL.encode(SecureRandom.bytes(32))
        return Base64URL.encode(header.serializedBytes()) + "." + Base64URL.encode(JSONValue.object(payload).serializedBytes())
            + "." + signature
    }

    private func claims(
        _ method: String, _ url: String, _ issuedAt: Date, _ accessToken: String?, _ nonce: String?, _ jti: String,
        _ bend: Bend
    ) -> JSONObject {
        var payload = JSONObject()
        payload["jti"] = .string(jti)
        payload["htm"] = .string(method)
        payload["htu"] = .string(url)
        payload["iat"] = .integer(Int64(issuedAt.timeIntervalSince1970))
        if let accessToken { payload["ath"] = .string(Base64URL.encode(SHA256.hash(Array(accessToken.utf8)))) }
        if let nonce { payload["nonce"] = .string(nonce) }
        for (name, value) in bend.claims { payload[name] = value }
        var kept = JSONObject()
        for member in payload where !bend.omitClaims.contains(member.name) { kept[member.name] = member.value }
        return kept
    }
}
