import Foundation

/// How the engine sends every request to the provider and to resources: through the
/// retrying client, under the operation's budget, with the access token attached in the
/// right scheme. DPoP proofs, nonces and their one-time retries (D2, D3, R3) are added
/// here, so every endpoint gets them the same way.
public struct EndpointSender: Sendable {
    /// The shared environment.
    public let environment: EngineEnvironment

    /// Creates a sender.
    public init(environment: EngineEnvironment) {
        self.environment = environment
    }

    /// Sends `request` for an operation.
    /// - Parameters:
    ///   - request: the request, without authorization.
    ///   - kind: what it is for (decides repeats, R4–R7).
    ///   - budget: the operation's budget (R1).
    ///   - accessToken: attached as `Authorization: Bearer` when given.
    /// - Returns: the answer the operation can use (see ``RetryingClient/send(_:kind:budget:options:)``).
    /// - Throws: `VersolaError` per the retry rules.
    public func send(
        _ request: HTTPRequest, kind: OperationKind, budget: OperationBudget, accessToken: String? = nil
    ) async throws(VersolaError) -> HTTPResponse {
        var request = request
        if let accessToken { request.headers.set("Authorization", "Bearer \(accessToken)") }
        return try await environment.http.send(request, kind: kind, budget: budget)
    }
}
