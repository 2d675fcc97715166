import Versola
import VersolaHTTP
import VersolaJOSE

/// The one error body of the agent protocol and of `versola --json` (E13, E14): the members
/// `category`, `cause`, what the cause carries, the provider's words, and `message`. Every
/// failure the agent answers, whatever the operation, is this body in `{"v":1,"error":{…}}`;
/// ``ErrorReport`` prints the same members. Written and read here only, so the two directions
/// cannot drift apart.
public struct AgentErrorBody: Sendable, Hashable {
    /// The error the body describes.
    public var error: VersolaError

    /// The body of `error`.
    public init(_ error: VersolaError) {
        self.error = error
    }

    /// The members, in the order written: `category`, `cause`, then what the cause carries.
    public var members: JSONObject {
        var members: [(String, JSONValue)] = [("category", .string(error.category)), ("cause", .string(error.cause))]
        switch error {
        case .recoverable(.server(let failure)):
            members.append(("status", .integer(Int64(failure.status))))
            members.append(("retryAfter", failure.retryAfter.map { .integer(ErrorReport.wholeSeconds($0)) } ?? .null))
            members.append(("failedRequests", .integer(Int64(failure.failedRequests))))
            members.append(("elapsedMs", .integer(ErrorReport.milliseconds(failure.elapsed))))
            if failure.errorCode == nil, let text = failure.errorDescription {
                members.append(("errorDescription", .string(text)))
            }
        case .recoverable(.network(let failure)):
            members.append(("kind", .string(failure.kind.rawValue)))
            members.append(("origin", .string(failure.origin)))
            members.append(("requestBytesWritten", .bool(failure.requestBytesWritten)))
        case .recoverable(.storageUnavailable(let reason)):
            members.append(("reason", .string(reason)))
        case .recoverable(.signingKeyUnavailable(let wait)):
            members.append(("retryAfter", .integer(ErrorReport.wholeSeconds(wait))))
        case .stepUp(let challenge):
            members.append(("acrValues", .array(challenge.acrValues.map { .string($0) })))
            members.append(("maxAge", challenge.maxAge.map { .integer(Int64($0)) } ?? .null))
            members.append(("scopes", .array(challenge.scopes.map { .string($0) })))
        case .configuration(let detail):
            if let reason = detail.reason { members.append(("reason", .string(reason))) }
            if case .discoveryIssuerMismatch(let expected, let actual) = detail {
                members.append(("expected", .string(expected)))
                members.append(("actual", .string(actual)))
            }
            if case .idTokenRejected(let rejection) = detail {
                members.append(("rejection", .string(rejection.kind.rawValue)))
            }
        default:
            break
        }
        if let said = error.providerError {
            // E14: what the provider said, cleaned.
            members.append(("providerError", .string(said.code)))
            members.append(("providerDescription", said.errorDescription.map { .string($0) } ?? .null))
        }
        members.append(("message", .string(error.description)))
        return JSONObject(members)
    }

    /// Reads a body back; nil for an unknown category or cause (a `message` is never read).
    public init?(members fields: JSONObject) {
        guard let category = fields["category"]?.string, let cause = fields["cause"]?.string,
            let name = VersolaErrorName(rawValue: cause), name.category == category
        else { return nil }
        self.init(Self.error(name, fields))
    }

    private static func error(_ name: VersolaErrorName, _ fields: JSONObject) -> VersolaError {
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
            return .recoverable(.server(server(fields, said: said)))
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

    private static func server(_ fields: JSONObject, said: ProviderError?) -> ServerFailure {
        ServerFailure(
            status: Int(fields["status"]?.int64 ?? 0), retryAfter: fields["retryAfter"]?.int64.map { Duration.seconds($0) },
            failedRequests: Int(fields["failedRequests"]?.int64 ?? 0),
            elapsed: .milliseconds(fields["elapsedMs"]?.int64 ?? 0), errorCode: said?.code,
            errorDescription: said?.errorDescription ?? fields["errorDescription"]?.string)
    }
}
