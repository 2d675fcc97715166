import VersolaCrypto

extension JWS {
    /// Produces a compact JWS.
    ///
    /// The header is serialized in the given member order; `alg` is set from the signer (added
    /// first when the header lacks it).
    /// - Parameters:
    ///   - header: the protected header, e.g. `["typ": "dpop+jwt", "jwk": key.jsonValue]`.
    ///   - payload: the claims, serialized deterministically.
    ///   - signer: the key and algorithm.
    /// - Throws: `JWSError.signerAlgorithmMismatch` when the header names another `alg`, or
    ///   `.signingFailed`.
    public static func sign(header: JSONObject, payload: JSONValue, signer: JWSSigner) throws(JWSError) -> String {
        try sign(header: header, payload: payload.serializedBytes(), signer: signer)
    }

    /// Produces a compact JWS over raw payload bytes.
    /// - Throws: `JWSError.signerAlgorithmMismatch` or `.signingFailed`.
    public static func sign(header: JSONObject, payload: [UInt8], signer: JWSSigner) throws(JWSError) -> String {
        var fullHeader = header
        if let named = header["alg"] {
            guard named.string == signer.algorithm.rawValue else {
                throw .signerAlgorithmMismatch(header: named.string ?? named.serialized(), signer: signer.algorithm)
            }
        } else {
            fullHeader = JSONObject([("alg", .string(signer.algorithm.rawValue))] + header.members.map { ($0.name, $0.value) })
        }
        var signingInput = Array(Base64URL.encode(JSONValue.object(fullHeader).serializedBytes()).utf8)
        signingInput.append(UInt8(ascii: "."))
        signingInput.append(contentsOf: Base64URL.encode(payload).utf8)
        let signature: [UInt8]
        do { signature = try signer.sign(signingInput) } catch { throw .signingFailed(error) }
        return String(decoding: signingInput, as: UTF8.self) + "." + Base64URL.encode(signature)
    }
}
