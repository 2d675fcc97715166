import VersolaJOSE

extension TestProvider {
    /// A JWT whose payload is exactly `payload` (JSON text as written, so numbers such as
    /// `1e300` or `-1e300` stay as they are), signed with the provider's current RS256 key
    /// and its `kid`, header `typ` set to `type`: for checking what a verifier does with
    /// claims no honest token carries, under a valid signature.
    public func signedToken(payload: String, type: String = "JWT") -> String {
        let (signer, keyID) = signingKeys.signer(for: .rs256, rogue: false)
        let header: JSONObject = ["typ": .string(type), "kid": .string(keyID)]
        return (try? JWS.sign(header: header, payload: Array(payload.utf8), signer: signer)) ?? ""
    }
}
