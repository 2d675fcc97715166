import Foundation
import Testing

@testable import VersolaHTTP
import VersolaTesting

/// Each attempt's transport timeout is the smaller of its own limit and what is left of the
/// operation's budget (R9, R1): one slow answer never holds an operation past its budget.
@Suite struct AttemptBudgetScenarios {
    static let origin = Origin(scheme: "https", host: "as.example")!

    @Test("R9 R1: every attempt's timeouts shrink to what is left of the budget")
    func attemptTimeoutsFollowTheBudget() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(
            [.failure(.timedOut(origin: Self.origin, requestBytesWritten: true))], clock: clock, callDuration: .seconds(2))
        let client = RetryingClient(
            transport: transport, clock: clock, random: SeededRandomSource(seed: 9),
            defaultOptions: TransportOptions(connectTimeout: .seconds(10), totalTimeout: .seconds(600)))
        let policy = RetryPolicy(maxAttempts: 5, totalBudget: .seconds(5), baseDelay: .milliseconds(100), maxDelay: .milliseconds(200))
        let budget = try OperationBudget(policy: policy, clock: clock)
        let thrown = await #expect(throws: HTTPFailure.self) {
            _ = try await client.send(HTTPRequest(url: URL(string: "https://as.example/jwks")!), kind: .read, budget: budget)
        }
        #expect(thrown?.caseName == "network", "got \(String(describing: thrown))")
        let options = transport.options
        #expect(options.count >= 2)
        #expect(options.first?.totalTimeout == .seconds(5))
        #expect(options.first?.connectTimeout == .seconds(5))
        var spentBefore: Duration = .zero
        for attempt in options {
            #expect(attempt.totalTimeout <= .seconds(5) - spentBefore)
            #expect(attempt.connectTimeout <= attempt.totalTimeout)
            spentBefore += .seconds(2)
        }
    }

    @Test("R9 R1: with nothing left of the budget an attempt gets no time of its own")
    func spentBudgetLeavesNoTime() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport([.status(200)])
        let client = RetryingClient(transport: transport, clock: clock, random: SeededRandomSource(seed: 9))
        let budget = try OperationBudget(policy: RetryPolicy(totalBudget: .seconds(1)), clock: clock)
        budget.recordFailedRequest(duration: .seconds(1))
        _ = try await client.send(HTTPRequest(url: URL(string: "https://as.example/jwks")!), kind: .read, budget: budget)
        #expect(transport.options.map(\.totalTimeout) == [.zero])
        #expect(transport.options.map(\.connectTimeout) == [.zero])
    }

    @Test("R9 R1: a slow-drip endpoint ends the operation near its budget, not at the transport's own limit")
    func slowDripEndsNearTheBudget() async throws {
        let server = try ScriptedServer([.drip(milliseconds: 50)])
        defer { server.stop() }
        let clock = SystemClock()
        let client = RetryingClient(
            transport: CurlTransport(), clock: clock, random: SeededRandomSource(seed: 9),
            defaultOptions: TransportOptions(connectTimeout: .seconds(10), totalTimeout: .seconds(30)))
        let budget = try OperationBudget(policy: RetryPolicy(maxAttempts: 3, totalBudget: .seconds(2)), clock: clock)
        let started = ContinuousClock.now
        let thrown2 = await #expect(throws: HTTPFailure.self) {
            _ = try await client.send(HTTPRequest(url: server.url("/jwks")), kind: .read, budget: budget)
        }
        #expect(thrown2?.caseName == "network", "got \(String(describing: thrown2))")
        let took = ContinuousClock.now - started
        // The budget is 2 s; the transport alone would wait 600 s. The upper bound is far from
        // both, so that a loaded machine stalling the test for many seconds cannot fail it.
        #expect(took >= .seconds(1), "ended after \(took)")
        #expect(took < .seconds(120), "ended after \(took)")
        #expect(server.requestCount >= 1)
    }
}
