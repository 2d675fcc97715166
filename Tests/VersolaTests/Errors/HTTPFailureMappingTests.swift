import Testing
import Versola

/// The HTTP layer's failures become the engine's errors in one place (`VersolaError(_:)`),
/// each in the category its cause belongs to (E6).
@Suite struct HTTPFailureMappingTests {
    static let network = NetworkFailure(kind: .couldNotConnect, requestBytesWritten: false, origin: "https://id.example")
    static let server = ServerFailure(status: 503, retryAfter: .seconds(30), failedRequests: 3, elapsed: .seconds(4))

    @Test("E1 E4 E6 E7: each HTTP failure becomes the engine error of its category, its payload kept")
    func everyFailureHasItsCategory() {
        let cases: [(HTTPFailure, VersolaError)] = [
            (.network(Self.network), .recoverable(.network(Self.network))),
            (.server(Self.server), .recoverable(.server(Self.server))),
            (.misconfigured("retryPolicy: maxAttempts 0 is outside 1...10"),
             .configuration(.invalidConfiguration("retryPolicy: maxAttempts 0 is outside 1...10"))),
            (.cancelled, .recoverable(.systemCancelled)),
        ]
        for (failure, expected) in cases {
            #expect(VersolaError(failure) == expected, "\(failure)")
        }
    }

    @Test("R2: a retry policy out of range is a configuration error before any request")
    func outOfRangePolicyIsConfiguration() {
        var configuration = ClientConfiguration(issuer: "https://id.example", clientID: "app")
        configuration.retryPolicy = RetryPolicy(maxAttempts: 0)
        #expect {
            try configuration.validate()
        } throws: { error in
            guard case .configuration(.invalidConfiguration(let reason, _)) = error as? VersolaError else { return false }
            return reason.hasPrefix("retryPolicy:")
        }
    }
}
