/// How hard an operation tries before it reports a failure (R2): attempts per request, the total
/// time budget of the operation, and the exponential backoff between attempts.
///
/// Every value has a fixed minimum and maximum; ``validate()`` rejects a value outside them
/// (never a silent clamp). Jitter is always on and cannot be turned off.
///
/// ```swift
/// let policy = RetryPolicy(maxAttempts: 5, totalBudget: .seconds(30))
/// try policy.validate()
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// The most times one request is sent (the first attempt included). Default 3.
    public var maxAttempts: Int
    /// The most time the failed requests of one operation, and the waits between them, may take.
    /// Default 20 s (R2).
    public var totalBudget: Duration
    /// The ceiling of the first backoff delay; each later ceiling doubles. Default 200 ms.
    public var baseDelay: Duration
    /// The largest backoff ceiling. Default 5 s.
    public var maxDelay: Duration

    /// Fewest attempts: 1 (no repeat).
    public static let minimumAttempts = 1
    /// Most attempts: 10.
    public static let maximumAttempts = 10
    /// Smallest total budget: 1 s.
    public static let minimumTotalBudget: Duration = .seconds(1)
    /// Largest total budget: 120 s.
    public static let maximumTotalBudget: Duration = .seconds(120)
    /// Smallest base delay: 10 ms.
    public static let minimumBaseDelay: Duration = .milliseconds(10)
    /// Largest base delay: 5 s.
    public static let maximumBaseDelay: Duration = .seconds(5)
    /// Smallest maximum delay: 100 ms.
    public static let minimumMaxDelay: Duration = .milliseconds(100)
    /// Largest maximum delay: 60 s.
    public static let maximumMaxDelay: Duration = .seconds(60)

    /// Creates a policy; each parameter defaults to the value documented on its property.
    public init(
        maxAttempts: Int = 3, totalBudget: Duration = .seconds(20), baseDelay: Duration = .milliseconds(200),
        maxDelay: Duration = .seconds(5)
    ) {
        self.maxAttempts = maxAttempts
        self.totalBudget = totalBudget
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// Checks every value against its fixed bounds and that `baseDelay <= maxDelay`.
    /// - Throws: `.misconfigured(reason)` naming the first value out of range.
    public func validate() throws(HTTPFailure) {
        func reject(_ reason: String) -> HTTPFailure { .misconfigured("retryPolicy: \(reason)") }
        guard (Self.minimumAttempts...Self.maximumAttempts).contains(maxAttempts) else {
            throw reject("maxAttempts \(maxAttempts) is outside \(Self.minimumAttempts)...\(Self.maximumAttempts)")
        }
        guard (Self.minimumTotalBudget...Self.maximumTotalBudget).contains(totalBudget) else {
            throw reject("totalBudget \(totalBudget) is outside \(Self.minimumTotalBudget)...\(Self.maximumTotalBudget)")
        }
        guard (Self.minimumBaseDelay...Self.maximumBaseDelay).contains(baseDelay) else {
            throw reject("baseDelay \(baseDelay) is outside \(Self.minimumBaseDelay)...\(Self.maximumBaseDelay)")
        }
        guard (Self.minimumMaxDelay...Self.maximumMaxDelay).contains(maxDelay) else {
            throw reject("maxDelay \(maxDelay) is outside \(Self.minimumMaxDelay)...\(Self.maximumMaxDelay)")
        }
        guard baseDelay <= maxDelay else { throw reject("baseDelay \(baseDelay) is above maxDelay \(maxDelay)") }
    }

    /// The backoff before the next attempt, with equal jitter: the ceiling is
    /// `min(maxDelay, baseDelay × 2^(failures − 1))` and the delay is uniform in `ceiling/2 ... ceiling`.
    /// - Parameters:
    ///   - failures: how many attempts of this request failed so far (1 after the first).
    ///   - random: the source of the jitter.
    public func backoff(afterFailures failures: Int, random: any RandomSource) -> Duration {
        var ceiling = baseDelay
        for _ in 1..<max(1, min(failures, 40)) where ceiling < maxDelay {
            ceiling *= 2
        }
        ceiling = min(ceiling, maxDelay)
        let half = ceiling / 2
        return half + half * random.unitInterval()
    }
}
