import Testing

@testable import VersolaHTTP
import VersolaTesting

/// R2: each bound just inside passes, just outside is a configuration error, never clamped.
@Suite struct RetryPolicyTests {
    static let nanosecond: Duration = .nanoseconds(1)

    static func rejects(_ policy: RetryPolicy) -> Bool {
        do {
            try policy.validate()
            return false
        } catch {
            guard case .misconfigured(let reason) = error else { return false }
            return reason.hasPrefix("retryPolicy:")
        }
    }

    @Test func defaultsAreValidAndBudgetIsTwentySeconds() throws {
        try RetryPolicy().validate()
        #expect(RetryPolicy().totalBudget == .seconds(20))
    }

    @Test func attemptsBounds() {
        #expect(!Self.rejects(RetryPolicy(maxAttempts: RetryPolicy.minimumAttempts)))
        #expect(!Self.rejects(RetryPolicy(maxAttempts: RetryPolicy.maximumAttempts)))
        #expect(Self.rejects(RetryPolicy(maxAttempts: RetryPolicy.minimumAttempts - 1)))
        #expect(Self.rejects(RetryPolicy(maxAttempts: RetryPolicy.maximumAttempts + 1)))
    }

    @Test func totalBudgetBounds() {
        #expect(!Self.rejects(RetryPolicy(totalBudget: RetryPolicy.minimumTotalBudget)))
        #expect(!Self.rejects(RetryPolicy(totalBudget: RetryPolicy.maximumTotalBudget)))
        #expect(Self.rejects(RetryPolicy(totalBudget: RetryPolicy.minimumTotalBudget - Self.nanosecond)))
        #expect(Self.rejects(RetryPolicy(totalBudget: RetryPolicy.maximumTotalBudget + Self.nanosecond)))
    }

    @Test func baseDelayBounds() {
        #expect(!Self.rejects(RetryPolicy(baseDelay: RetryPolicy.minimumBaseDelay)))
        #expect(!Self.rejects(RetryPolicy(baseDelay: RetryPolicy.maximumBaseDelay)))
        #expect(Self.rejects(RetryPolicy(baseDelay: RetryPolicy.minimumBaseDelay - Self.nanosecond)))
        #expect(Self.rejects(RetryPolicy(baseDelay: RetryPolicy.maximumBaseDelay + Self.nanosecond, maxDelay: .seconds(60))))
    }

    @Test func maxDelayBounds() {
        #expect(!Self.rejects(RetryPolicy(baseDelay: .milliseconds(10), maxDelay: RetryPolicy.minimumMaxDelay)))
        #expect(!Self.rejects(RetryPolicy(maxDelay: RetryPolicy.maximumMaxDelay)))
        #expect(Self.rejects(RetryPolicy(baseDelay: .milliseconds(10), maxDelay: RetryPolicy.minimumMaxDelay - Self.nanosecond)))
        #expect(Self.rejects(RetryPolicy(maxDelay: RetryPolicy.maximumMaxDelay + Self.nanosecond)))
    }

    @Test func baseDelayAboveMaxDelayIsRejected() {
        #expect(Self.rejects(RetryPolicy(baseDelay: .seconds(2), maxDelay: .seconds(1))))
    }

    @Test func outOfRangePolicyFailsBeforeAnyRequest() async {  // R2
        let transport = ScriptedTransport([.status(200)])
        let clock = ManualClock()
        let thrown = await #expect(throws: HTTPFailure.self) {
            let budget = try OperationBudget(policy: RetryPolicy(maxAttempts: 0), clock: clock)
            _ = try await RetryingClient(transport: transport, clock: clock, random: SeededRandomSource(seed: 1))
                .send(HTTPRequest(url: Fixture.url), kind: .read, budget: budget)
        }
        #expect(thrown?.caseName == "misconfigured", "got \(String(describing: thrown))")
        #expect(transport.callCount == 0)
    }

    @Test func backoffIsJitteredExponentialWithinCeilings() {  // R2: jitter always on
        let policy = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        let random = SeededRandomSource(seed: 99)
        for (failures, ceiling) in [(1, 100), (2, 200), (3, 400), (4, 800), (5, 1000), (30, 1000), (1000, 1000)] {
            var seen = Set<Duration>()
            for _ in 0..<50 {
                let delay = policy.backoff(afterFailures: failures, random: random)
                #expect(delay >= .milliseconds(ceiling) / 2 && delay <= .milliseconds(ceiling), "\(failures): \(delay)")
                seen.insert(delay)
            }
            #expect(seen.count > 10, "jitter varies the delay")
        }
    }
}

/// The per-operation budget (R1).
@Suite struct OperationBudgetTests {
    @Test func onlyFailedRequestsAndWaitsSpendIt() throws {
        let clock = ManualClock()
        let budget = try OperationBudget(policy: RetryPolicy(totalBudget: .seconds(10)), clock: clock)
        clock.advance(by: .seconds(3))  // a successful request, or anything else: not spent
        #expect(budget.spent == .zero)
        #expect(budget.elapsed == .seconds(3))
        budget.recordFailedRequest(duration: .seconds(2))
        budget.recordWait(.seconds(1))
        #expect(budget.failedRequests == 1)
        #expect(budget.remaining == .seconds(7))
        #expect(budget.fits(.seconds(7)))
        #expect(!budget.fits(.seconds(7) + .nanoseconds(1)))
        budget.recordFailedRequest(duration: .seconds(30))
        #expect(budget.remaining == .zero)
        #expect(budget.failedRequests == 2)
    }
}
