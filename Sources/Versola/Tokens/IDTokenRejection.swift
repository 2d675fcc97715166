/// Why an ID token, or a UserInfo answer checked against it, was not accepted (A7, A8): a
/// kind an application can match on, and a detail in plain words for people.
///
/// ```swift
/// if case .configuration(.idTokenRejected(let rejection)) = error, rejection.kind == .expired {
///     print("check this computer's clock:", rejection.detail)
/// }
/// ```
public struct IDTokenRejection: Sendable, Hashable, CustomStringConvertible {
    /// Which check failed.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A token response to an `openid` request carried no `id_token`.
        case missing
        /// The token is not a well-formed compact JWS, its header is unusable, or its payload
        /// is not a JSON object.
        case malformed
        /// It is signed with an algorithm the configuration does not allow (never `none` or HMAC).
        case algorithmNotAllowed
        /// No key of the provider's key set can check it (none has its `kid`, or none permits
        /// its algorithm, or several could and it names none).
        case noUsableKey
        /// The signature does not verify.
        case signatureInvalid
        /// A required claim is absent (`iss`, `sub`, `aud`, `exp`, `iat`; `nonce` when the
        /// request sent one; `azp` with several audiences; UserInfo's `sub`).
        case claimMissing
        /// A claim has the wrong type or an impossible value.
        case claimMalformed
        /// `iss` is not the configured issuer.
        case issuerMismatch
        /// `aud` does not contain the client id, or `azp` names another client.
        case audienceMismatch
        /// `exp` has passed (beyond the clock tolerance).
        case expired
        /// `iat` or `nbf` lies in the future (beyond the clock tolerance): often a wrong clock.
        case notYetValid
        /// `nonce` differs from the one the request sent.
        case nonceMismatch
        /// `at_hash` does not match the access token it came with.
        case accessTokenHashMismatch
        /// A refreshed token names another issuer, subject or audience than the one before it
        /// (OIDC Core §12.2), or UserInfo's `sub` differs from the ID token's.
        case subjectChanged
    }

    /// Which check failed.
    public var kind: Kind
    /// What was wrong, in plain words (a claim name and the values compared, never the token).
    public var detail: String

    /// Creates a rejection.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// The detail.
    public var description: String { detail }
}
