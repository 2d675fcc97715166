import VersolaHTTP
import VersolaCrypto

extension SessionRecord {
    /// The grant this record describes, for restoring and revocation: one with an ID token
    /// that still reads, or (a plain OAuth 2.0 grant, A16) a refresh token or a stored access
    /// token without an ID token. Its access token is the stored one of a grant without a
    /// refresh token (P13), else empty: a renewable grant's lives in memory only (P4).
    ///
    /// A pure reading of the record, so that the machine can derive the grant of a record it
    /// holds back (P10) itself instead of being handed it by the actor.
    var grant: Grant? {
        let claims = idToken.flatMap { IDTokenClaims(restoringValidated: $0) }
        let validIDToken = claims == nil ? nil : idToken
        let stored = refreshToken == nil ? accessToken : nil
        guard claims != nil || (idToken == nil && (refreshToken != nil || stored != nil)) else { return nil }
        return Grant(
            accessToken: stored?.value ?? "", tokenType: dpopPrivateKey == nil ? .bearer : .dpop,
            expiresAt: stored?.expiresAt, refreshToken: refreshToken, idToken: validIDToken, claims: claims,
            scope: stored?.scope, dpopKey: dpopPrivateKey.flatMap { try? DPoPKey(rawRepresentation: $0) })
    }
}
