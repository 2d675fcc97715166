public import VersolaHTTP

extension VersolaError: HTTPFailureRepresentable {
    /// The engine's error for a failure of the HTTP layer; the one place where one becomes
    /// the other. Network and server failures may pass if tried later (E1, E8); a
    /// misconfiguration is for a developer or administrator (E4); a cancel ends the wait and
    /// keeps what is pending (E7).
    public init(_ failure: HTTPFailure) {
        switch failure {
        case .network(let failure): self = .recoverable(.network(failure))
        case .server(let failure): self = .recoverable(.server(failure))
        case .misconfigured(let reason): self = .configuration(.invalidConfiguration(reason))
        case .cancelled: self = .recoverable(.systemCancelled)
        }
    }
}

extension VersolaError {
    /// Runs `body` and throws what it throws as the engine's error (see ``init(_:)``).
    package static func converting<Value>(_ body: () throws(HTTPFailure) -> Value) throws(VersolaError) -> Value {
        do { return try body() } catch { throw VersolaError(error) }
    }
}
