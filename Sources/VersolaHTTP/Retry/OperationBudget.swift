import Synchronization

/// The retry budget of one operation (R1), carried across all its steps: a DPoP nonce retry,
/// a refresh after a 401, the replay all draw on the same budget.
///
/// Only failed requests spend it: the time a failed attempt took and the wait after it. A
/// successful request costs nothing. Time is read on the injected clock; browser time is
/// excluded because the engine creates the budget after the browser leg.
///
/// ```swift
/// let budget = try OperationBudget(policy: configuration.retryPolicy, clock: clock)
/// let response = try await client.send(request, kind: .read, budget: budget)
/// print(response.status)
/// ```
public final class OperationBudget: Sendable {
    private struct State {
        var spent: Duration = .zero
        var failedRequests = 0
    }

    /// The policy the operation runs under (attempts, budget, backoff).
    public let policy: RetryPolicy
    private let clock: any VersolaClock
    private let start: Duration
    private let state = Mutex(State())

    /// Starts a budget now.
    /// - Throws: `.misconfigured` when the policy is out of bounds (R2), before any request is made.
    public init(policy: RetryPolicy = RetryPolicy(), clock: any VersolaClock) throws(HTTPFailure) {
        try policy.validate()
        self.policy = policy
        self.clock = clock
        self.start = clock.monotonicNow
    }

    /// Time since the operation started, on the clock (for `ServerFailure.elapsed`).
    public var elapsed: Duration { clock.monotonicNow - start }

    /// What failed requests and waits have used.
    public var spent: Duration { state.withLock { $0.spent } }

    /// What is left of ``RetryPolicy/totalBudget`` (zero when used up).
    public var remaining: Duration { max(.zero, policy.totalBudget - spent) }

    /// How many requests of the operation failed.
    public var failedRequests: Int { state.withLock { $0.failedRequests } }

    /// Counts one failed request and the time it took. The engine calls this for failures it
    /// detects itself (a nonce demand, a 401), the ``RetryingClient`` for every non-2xx attempt.
    public func recordFailedRequest(duration: Duration) {
        state.withLock { state in
            state.failedRequests += 1
            state.spent += max(.zero, duration)
        }
    }

    /// Counts a wait between attempts.
    public func recordWait(_ duration: Duration) {
        state.withLock { $0.spent += max(.zero, duration) }
    }

    /// Whether a wait of `duration` fits in what is left.
    public func fits(_ duration: Duration) -> Bool {
        duration <= remaining
    }
}
