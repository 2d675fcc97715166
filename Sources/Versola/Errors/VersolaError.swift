/// Every failure Versola reports to an application, sorted by what the application
/// should do about it.
///
/// The hierarchy is closed on purpose (SPEC E5): it is a plain Swift enum whose nested
/// causes are enums too, and the public APIs use typed throws, so a new case is a
/// compile-time break for every `switch` that handles it. Each cause belongs to exactly
/// one category (E6), decided by the type of what went wrong, never by matching text.
///
/// ```swift
/// do {
///     let token = try await session.accessToken()
///     print(token)                           // the type and expiry, never the token itself
/// } catch .recoverable(let cause) {
///     print("try again later:", cause)       // the session is intact
/// } catch .reauthenticate {
///     print("the grant is gone: offer a new login")
/// } catch .stepUp(let challenge) {
///     try await session.stepUp(challenge)
/// } catch .configuration(let detail) {
///     print("a developer or administrator must fix:", detail)
/// }
/// ```
public enum VersolaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Trying again later may succeed; nothing the user holds was lost (E1).
    case recoverable(RecoverableCause)
    /// The grant is unusable; only a new interactive login helps (E2). The engine never
    /// opens a browser by itself in answer to one.
    case reauthenticate(ReauthenticationReason)
    /// The resource asks for a stronger or fresher authentication (E3).
    case stepUp(StepUpChallenge)
    /// Something only a developer or administrator can fix (E4).
    case configuration(ConfigurationDetail)

    /// The category's wire name (E13): `recoverable`, `reauthenticate`, `stepUp` or `configuration`.
    public var category: String { name.category }

    /// The cause's wire name (E13), the case name of the nested enum (`nonceLoop`,
    /// `grantRejected`, `idTokenRejected`, …). For a step-up it is `stepUp`.
    public var cause: String { name.rawValue }

    /// A one-line account for logs. Holds no token, code, verifier or key.
    public var description: String {
        switch self {
        case .recoverable(let cause): "recoverable(\(cause))"
        case .reauthenticate(let reason): "reauthenticate(\(reason.rawValue))"
        case .stepUp(let challenge): "stepUp(\(challenge))"
        case .configuration(let detail): "configuration(\(detail))"
        }
    }

    /// What the provider said about the failure (its `error` and `error_description`, cleaned),
    /// when the failure came from a provider's error answer (E14).
    public var providerError: ProviderError? {
        switch self {
        case .recoverable(.server(let failure)): failure.providerError
        case .configuration(let detail): detail.providerError
        default: nil
        }
    }
}

/// Why an operation failed in a way that trying again later may fix (E1).
public enum RecoverableCause: Sendable, Hashable, CustomStringConvertible {
    /// The person cancelled the sign-in. The pending request is wiped and never retried (E7).
    case userCancelled
    /// The system ended the wait (a timeout, the process told to stop). The pending
    /// request is kept so the flow can resume (E7).
    case systemCancelled
    /// A redirect arrived for a pending request older than its 10-minute lifetime (P2).
    case pendingRequestExpired
    /// Nothing answered: name resolution, connection, TLS or a timeout (E8).
    case network(NetworkFailure)
    /// The server answered 408, 429, 5xx, or a status the operation could not use (E8).
    case server(ServerFailure)
    /// The key source is locked; unlock it and the session returns intact (S10).
    case unlockRequired
    /// A DPoP nonce was demanded again on a request that already carried one (D3).
    case nonceLoop
    /// The session's store could not be read or written (a full disk, an I/O error, a
    /// read-only file system): nothing was lost, the grant is kept in memory and written
    /// again later (P10).
    case storageUnavailable(String)
    /// An ID token names a signing key the provider's key set lacks, and the key set was
    /// fetched again less than a minute ago (it is fetched at most once a minute, A7): a key
    /// being rolled out reaches the key set soon, so try again after `retryAfter` (E6).
    case signingKeyUnavailable(retryAfter: Duration)

    /// The case name used on the wire (E13).
    public var name: String { wireName.rawValue }

    public var description: String {
        switch self {
        case .network(let failure): "network(\(failure))"
        case .server(let failure): "server(\(failure))"
        case .storageUnavailable(let reason): "storageUnavailable(\(reason))"
        default: name
        }
    }
}

/// Why the grant can no longer be used and the person must sign in again (E2).
public enum ReauthenticationReason: String, Sendable, Hashable, CaseIterable {
    /// The authorization endpoint answered `access_denied`.
    case authorizationDenied
    /// The provider needs the person (`login_required`, `interaction_required`,
    /// `consent_required`, `account_selection_required`).
    case interactionRequired
    /// The stored secrets could not be decrypted (tampering, a lost key): a sign-out (E9).
    case credentialsInvalidated
    /// The token endpoint answered `invalid_grant` (E9).
    case grantRejected
    /// A resource rejected the session again after one refresh and one replay (E10).
    case sessionRejected
    /// The access token expired and there is no refresh token (S8).
    case sessionExpired
}

/// What a developer or administrator must fix (E4). The person trying again fixes none of them.
public enum ConfigurationDetail: Sendable, Hashable, CustomStringConvertible {
    /// The redirect's `state` does not match the pending request (E12).
    case stateMismatch
    /// The redirect's RFC 9207 `iss` does not match the issuer (E12).
    case issuerMismatch
    /// The ID token (or the UserInfo answer checked against it) failed validation (A7, A8).
    case idTokenRejected(String)
    /// The provider lacks something the configuration needs, or answered in a way this
    /// client does not accept (no PKCE S256, DPoP not advertised, a Bearer answer to DPoP).
    /// `provider` is what the provider said, when an error answer caused it (E14).
    case providerUnsupported(String, provider: ProviderError? = nil)
    /// The configuration itself is invalid (a retry policy out of range, an `http` issuer
    /// off loopback, an endpoint that answers with a redirect, a certificate that is not
    /// trusted). `provider` is what the provider said, when an error answer caused it (E14).
    case invalidConfiguration(String, provider: ProviderError? = nil)
    /// The provider refused the authorization request itself (a rejected PAR push, E11).
    /// `provider` is what the provider said, when its answer said anything (E14).
    case authorizationRejected(String, provider: ProviderError? = nil)
    /// The discovery document's `issuer` differs from the configured one (A1).
    case discoveryIssuerMismatch(expected: String, actual: String)

    /// The case name used on the wire (E13).
    public var name: String { wireName.rawValue }

    /// The human-readable reason, when the case carries one.
    public var reason: String? {
        switch self {
        case .stateMismatch, .issuerMismatch: nil
        case .idTokenRejected(let reason), .providerUnsupported(let reason, _),
            .invalidConfiguration(let reason, _), .authorizationRejected(let reason, _):
            reason
        case .discoveryIssuerMismatch(let expected, let actual):
            "expected issuer \(expected), discovery says \(actual)"
        }
    }

    /// What the provider said, when an error answer of the provider caused this (E14).
    public var providerError: ProviderError? {
        switch self {
        case .providerUnsupported(_, let provider), .invalidConfiguration(_, let provider),
            .authorizationRejected(_, let provider):
            provider
        case .stateMismatch, .issuerMismatch, .idTokenRejected, .discoveryIssuerMismatch: nil
        }
    }

    /// `name: reason`, then what the provider said in quotes, when it said anything.
    public var description: String {
        var text = if let reason { "\(name): \(reason)" } else { name }
        if let providerError { text += " (provider: \(providerError))" }
        return text
    }
}
