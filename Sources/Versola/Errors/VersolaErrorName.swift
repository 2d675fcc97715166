/// Every cause of a ``VersolaError`` by its wire name (E13), with its category: the one table
/// that the JSON encoder (``VersolaError/cause``), the agent's decoder and the tests all read.
/// Adding a cause to the error enums fails to compile until it has a name here.
public enum VersolaErrorName: String, Sendable, CaseIterable {
    case userCancelled, systemCancelled, pendingRequestExpired, network, server, unlockRequired, nonceLoop
    case storageUnavailable, signingKeyUnavailable
    case authorizationDenied, interactionRequired, credentialsInvalidated, grantRejected, sessionRejected
    case sessionExpired
    case stepUp
    case stateMismatch, issuerMismatch, idTokenRejected, providerUnsupported, invalidConfiguration
    case authorizationRejected, discoveryIssuerMismatch

    /// The category's wire name: `recoverable`, `reauthenticate`, `stepUp` or `configuration`.
    public var category: String {
        switch self {
        case .userCancelled, .systemCancelled, .pendingRequestExpired, .network, .server, .unlockRequired, .nonceLoop,
            .storageUnavailable, .signingKeyUnavailable:
            "recoverable"
        case .authorizationDenied, .interactionRequired, .credentialsInvalidated, .grantRejected, .sessionRejected,
            .sessionExpired:
            "reauthenticate"
        case .stepUp:
            "stepUp"
        case .stateMismatch, .issuerMismatch, .idTokenRejected, .providerUnsupported, .invalidConfiguration,
            .authorizationRejected, .discoveryIssuerMismatch:
            "configuration"
        }
    }
}

extension VersolaError {
    /// This error's entry in the E13 table.
    public var name: VersolaErrorName {
        switch self {
        case .recoverable(let cause): cause.wireName
        case .reauthenticate(let reason): reason.wireName
        case .stepUp: .stepUp
        case .configuration(let detail): detail.wireName
        }
    }
}

extension RecoverableCause {
    /// This cause's entry in the E13 table.
    public var wireName: VersolaErrorName {
        switch self {
        case .userCancelled: .userCancelled
        case .systemCancelled: .systemCancelled
        case .pendingRequestExpired: .pendingRequestExpired
        case .network: .network
        case .server: .server
        case .unlockRequired: .unlockRequired
        case .nonceLoop: .nonceLoop
        case .storageUnavailable: .storageUnavailable
        case .signingKeyUnavailable: .signingKeyUnavailable
        }
    }
}

extension ReauthenticationReason {
    /// This reason's entry in the E13 table.
    public var wireName: VersolaErrorName {
        switch self {
        case .authorizationDenied: .authorizationDenied
        case .interactionRequired: .interactionRequired
        case .credentialsInvalidated: .credentialsInvalidated
        case .grantRejected: .grantRejected
        case .sessionRejected: .sessionRejected
        case .sessionExpired: .sessionExpired
        }
    }
}

extension ConfigurationDetail {
    /// This detail's entry in the E13 table.
    public var wireName: VersolaErrorName {
        switch self {
        case .stateMismatch: .stateMismatch
        case .issuerMismatch: .issuerMismatch
        case .idTokenRejected: .idTokenRejected
        case .providerUnsupported: .providerUnsupported
        case .invalidConfiguration: .invalidConfiguration
        case .authorizationRejected: .authorizationRejected
        case .discoveryIssuerMismatch: .discoveryIssuerMismatch
        }
    }
}
