/// A server answer the operation could not use (E8): a 408, 429, 5xx, or any other
/// status the operation has no use for, with the operation's budget accounting (R1, E13).
public struct ServerFailure: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status of the last answer.
    public var status: Int
    /// How long the server asked the client to wait (`Retry-After`), when it said so.
    public var retryAfter: Duration?
    /// How many requests of the operation failed.
    public var failedRequests: Int
    /// Time the operation spent, on the engine's clock, browser time excluded.
    public var elapsed: Duration
    /// The provider's `error` code, when the body carried one (cleaned, E14; never matched).
    public var errorCode: String?
    /// The provider's `error_description` (cleaned, E14), or the engine's account of an answer
    /// it could not use; never matched on (E6).
    public var errorDescription: String?

    /// Creates a failure record.
    public init(
        status: Int, retryAfter: Duration? = nil, failedRequests: Int, elapsed: Duration,
        errorCode: String? = nil, errorDescription: String? = nil
    ) {
        self.status = status
        self.retryAfter = retryAfter
        self.failedRequests = failedRequests
        self.elapsed = elapsed
        self.errorCode = errorCode.map { ProviderText.clean($0, limit: ProviderError.maximumCodeLength) }
        self.errorDescription = errorDescription.map {
            ProviderText.clean($0, limit: ProviderError.maximumDescriptionLength)
        }
    }

    /// The provider's `error` and `error_description`, when the answer carried an OAuth error (E14).
    public var providerError: ProviderError? {
        errorCode.flatMap { ProviderError(code: $0, description: errorDescription) }
    }

    public var description: String {
        var text = "status \(status), \(failedRequests) failed request(s) in \(elapsed)"
        if let retryAfter { text += ", retry after \(retryAfter)" }
        if let providerError { text += ", provider: \(providerError)" }
        return text
    }
}
