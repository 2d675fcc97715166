import Versola
import VersolaHTTP
import VersolaJOSE

/// Reads back a ``VersolaError`` from the E13 members ``ErrorReport/fields(of:)`` writes, so
/// that an error crossing the agent socket keeps its category, cause and details.
public enum VersolaErrorCoding {
    /// The error the members describe; nil for an unknown category or cause.
    public static func decode(_ fields: JSONObject) -> VersolaError? {
        guard let category = fields["category"]?.string, let cause = fields["cause"]?.string,
            let name = VersolaErrorName(rawValue: cause), name.category == category
        else { return nil }
        let reason = fields["reason"]?.string ?? ""
        let said = fields["providerError"]?.string.flatMap {
            ProviderError(code: $0, description: fields["providerDescription"]?.string)
        }
        switch name {
        case .userCancelled: return .recoverable(.userCancelled)
        case .systemCancelled: return .recoverable(.systemCancelled)
        case .pendingRequestExpired: return .recoverable(.pendingRequestExpired)
        case .unlockRequired: return .recoverable(.unlockRequired)
        case .nonceLoop: return .recoverable(.nonceLoop)
        case .storageUnavailable: return .recoverable(.storageUnavailable(reason))
        case .signingKeyUnavailable:
            return .recoverable(.signingKeyUnavailable(retryAfter: .seconds(fields["retryAfter"]?.int64 ?? 60)))
        case .network:
            let kind = fields["kind"]?.string.flatMap(NetworkFailure.Kind.init(rawValue:)) ?? .couldNotConnect
            return .recoverable(
                .network(
                    NetworkFailure(
                        kind: kind, requestBytesWritten: fields["requestBytesWritten"]?.bool ?? false,
                        origin: fields["origin"]?.string ?? "")))
        case .server:
            let retryAfter = fields["retryAfter"]?.int64.map { Duration.seconds($0) }
            let elapsed = Duration.milliseconds(fields["elapsedMs"]?.int64 ?? 0)
            return .recoverable(
                .server(
                    ServerFailure(
                        status: Int(fields["status"]?.int64 ?? 0), retryAfter: retryAfter,
                        failedRequests: Int(fields["failedRequests"]?.int64 ?? 0), elapsed: elapsed,
                        errorCode: said?.code,
                        errorDescription: said?.errorDescription ?? fields["errorDescription"]?.string)))
        case .authorizationDenied: return .reauthenticate(.authorizationDenied)
        case .interactionRequired: return .reauthenticate(.interactionRequired)
        case .credentialsInvalidated: return .reauthenticate(.credentialsInvalidated)
        case .grantRejected: return .reauthenticate(.grantRejected)
        case .sessionRejected: return .reauthenticate(.sessionRejected)
        case .sessionExpired: return .reauthenticate(.sessionExpired)
        case .stepUp:
            let acr = fields["acrValues"]?.array?.compactMap(\.string) ?? []
            let maxAge = fields["maxAge"]?.int64.flatMap { Int(exactly: $0) }
            let scopes = fields["scopes"]?.array?.compactMap(\.string) ?? []
            return .stepUp(StepUpChallenge(acrValues: acr, maxAge: maxAge, scopes: scopes))
        case .stateMismatch: return .configuration(.stateMismatch)
        case .issuerMismatch: return .configuration(.issuerMismatch)
        case .idTokenRejected:
            let kind = fields["rejection"]?.string.flatMap(IDTokenRejection.Kind.init(rawValue:)) ?? .malformed
            return .configuration(.idTokenRejected(IDTokenRejection(kind, reason)))
        case .providerUnsupported: return .configuration(.providerUnsupported(reason, provider: said))
        case .invalidConfiguration: return .configuration(.invalidConfiguration(reason, provider: said))
        case .authorizationRejected: return .configuration(.authorizationRejected(reason, provider: said))
        case .discoveryIssuerMismatch:
            return .configuration(
                .discoveryIssuerMismatch(expected: fields["expected"]?.string ?? "", actual: fields["actual"]?.string ?? ""))
        }
    }
}
