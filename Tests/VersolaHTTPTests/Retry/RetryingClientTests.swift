import Foundation
import Testing

@testable import VersolaHTTP
import VersolaTesting

/// The retry engine over a scripted transport and the manual clock: no sockets, no real waiting.
@Suite struct RetryingClientTests {
    let clock = ManualClock()
    let random = SeededRandomSource(seed: 11)

    func client(_ transport: any HTTPTransport) -> RetryingClient {
        RetryingClient(transport: transport, clock: clock, random: random)
    }

    func budget(_ policy: RetryPolicy = RetryPolicy()) throws -> OperationBudget {
        try OperationBudget(policy: policy, clock: clock)
    }

    func serverFailure(_ error: HTTPFailure?) -> ServerFailure? {
        guard case .server(let failure) = error else { return nil }
        return failure
    }

    @Test func readRepeatsA500ThenSucceeds() async throws {  // R5
        let transport = ScriptedTransport([.status(500), .status(502), .status(200)])
        let response = try await client(transport).send(HTTPRequest(url: Fixture.url), kind: .read, budget: try budget())
        #expect(response.status == 200)
        #expect(transport.callCount == 3)
        #expect(clock.sleeps.count == 2)
        #expect(clock.sleeps[0] >= .milliseconds(100) && clock.sleeps[0] <= .milliseconds(200))
        #expect(clock.sleeps[1] >= .milliseconds(200) && clock.sleeps[1] <= .milliseconds(400))
    }

    @Test func readGivesUpAfterMaxAttemptsWithServerFailure() async throws {  // R5, E8, E13
        let transport = ScriptedTransport([.status(503)], clock: clock, callDuration: .milliseconds(100))
        let budget = try budget(RetryPolicy(maxAttempts: 4))
        let error = await #expect(throws: HTTPFailure.self) {
            try await client(transport).send(HTTPRequest(url: Fixture.url), kind: .read, budget: budget)
        }
        let failure = try #require(serverFailure(error))
        #expect(failure.status == 503)
        #expect(failure.failedRequests == 4)
        #expect(failure.retryAfter == nil)
        #expect(failure.elapsed == .milliseconds(400) + clock.sleeps.reduce(.zero, +))
        #expect(transport.callCount == 4)
    }

    @Test func networkFailureAfterRepeatsIsRecoverableNetwork() async throws {  // R5, E8
        let failure = TransportError.timedOut(origin: Fixture.origin, requestBytesWritten: true)
        let transport = ScriptedTransport([.failure(failure)])
        let error = await #expect(throws: HTTPFailure.self) {
            try await client(transport).send(HTTPRequest(url: Fixture.url), kind: .read, budget: try budget())
        }
        #expect(error == .network(NetworkFailure(kind: .timedOut, requestBytesWritten: true, origin: "https://idp.example")))
        #expect(transport.callCount == 3)
    }

    @Test func codeExchangeIsSentOnceOverAFreshConnection() async throws {  // R4, A6
        for step in [ScriptedTransport.Step.failure(.failedAfterSending(origin: Fixture.origin)), .status(503), .status(500),
            .failure(.couldNotConnect(origin: Fixture.origin))]
        {
            let transport = ScriptedTransport([step, .status(200)])
            let thrown = await #expect(throws: HTTPFailure.self) {
                try await client(transport).send(HTTPRequest(method: .post, url: Fixture.url), kind: .codeExchange, budget: try budget())
            }
            #expect(thrown?.caseName == expectedCause(step), "got \(String(describing: thrown))")
            #expect(transport.callCount == 1)
            #expect(transport.options.allSatisfy { !$0.allowConnectionReuse })
        }
    }

    @Test func refreshRepeatsOnlyWhenProvablyUnprocessed() async throws {  // R6
        let repeated: [ScriptedTransport.Step] = [
            .failure(.couldNotConnect(origin: Fixture.origin)), .status(408), .status(429), .status(503),
        ]
        for step in repeated {
            let transport = ScriptedTransport([step, .status(200)])
            let response = try await client(transport).send(HTTPRequest(method: .post, url: Fixture.url), kind: .refresh, budget: try budget())
            #expect(response.status == 200)
            #expect(transport.callCount == 2)
            #expect(transport.options.allSatisfy { !$0.allowConnectionReuse })
        }
        let notRepeated: [ScriptedTransport.Step] = [
            .failure(.timedOut(origin: Fixture.origin, requestBytesWritten: true)),
            .failure(.failedAfterSending(origin: Fixture.origin)), .status(500), .status(502), .status(504),
        ]
        for step in notRepeated {
            let transport = ScriptedTransport([step, .status(200)])
            let thrown2 = await #expect(throws: HTTPFailure.self) {
                try await client(transport).send(HTTPRequest(method: .post, url: Fixture.url), kind: .refresh, budget: try budget())
            }
            #expect(thrown2?.caseName == expectedCause(step), "got \(String(describing: thrown2))")
            #expect(transport.callCount == 1)
        }
    }

    @Test func applicationGetsEveryStatusAsAResponse() async throws {  // R7
        for status in [302, 400, 401, 408, 429, 500, 503] {
            let transport = ScriptedTransport([.status(status), .status(200)])
            let response = try await client(transport).send(HTTPRequest(url: Fixture.url), kind: .application, budget: try budget())
            #expect(response.status == status)
            #expect(transport.callCount == 1)
        }
    }

    @Test func otherClientErrorsAreReturnedForTheEngine() async throws {  // R4: not repeated
        let transport = ScriptedTransport([.status(400), .status(200)])
        let budget = try budget()
        let response = try await client(transport).send(HTTPRequest(method: .post, url: Fixture.url), kind: .read, budget: budget)
        #expect(response.status == 400)
        #expect(transport.callCount == 1)
        #expect(budget.failedRequests == 1)  // R1: a non-2xx spends the budget
    }

    @Test func redirectFromAnEndpointIsAConfigurationError() async throws {  // R4
        for kind in [OperationKind.read, .refresh, .codeExchange] {
            let transport = ScriptedTransport([.status(302), .status(200)])
            let error = await #expect(throws: HTTPFailure.self) {
                try await client(transport).send(HTTPRequest(url: Fixture.url), kind: kind, budget: try budget())
            }
            guard case .misconfigured(let reason) = error else {
                Issue.record("got \(String(describing: error))")
                continue
            }
            #expect(reason.contains("redirect"))
            #expect(transport.callCount == 1)
        }
    }

    @Test func retryAfterIsWaitedExactly() async throws {  // R8
        let transport = ScriptedTransport([.status(429, headers: ["Retry-After": "3"]), .status(200)])
        let response = try await client(transport).send(HTTPRequest(url: Fixture.url), kind: .read, budget: try budget())
        #expect(response.status == 200)
        #expect(clock.sleeps == [.seconds(3)])
    }

    @Test func retryAfterAsDateIsWaitedExactly() async throws {  // R8
        // ManualClock starts at 2025-01-01T00:00:00Z.
        let headers: HTTPHeaders = ["Retry-After": "Wed, 01 Jan 2025 00:00:05 GMT"]
        let transport = ScriptedTransport([.status(503, headers: headers), .status(200)])
        _ = try await client(transport).send(HTTPRequest(url: Fixture.url), kind: .read, budget: try budget())
        #expect(clock.sleeps == [.seconds(5)])
    }

    @Test func retryAfterIsIgnoredOnOtherStatuses() async throws {  // R8: read on 429 and 503 only
        let transport = ScriptedTransport([.status(500, headers: ["Retry-After": "9"]), .status(200)])
        _ = try await client(transport).send(HTTPRequest(url: Fixture.url), kind: .read, budget: try budget())
        #expect(clock.sleeps.count == 1)
        #expect(clock.sleeps[0] < .seconds(1))
    }

    @Test func retryAfterBeyondTheBudgetStopsAtOnceAndClosesTheOrigin() async throws {  // R8, R1
        let transport = ScriptedTransport([.status(503, headers: ["Retry-After": "30"]), .status(200)])
        let client = client(transport)
        let error = await #expect(throws: HTTPFailure.self) {
            try await client.send(HTTPRequest(url: Fixture.url), kind: .read, budget: try budget())
        }
        let failure = try #require(serverFailure(error))
        #expect(failure.status == 503)
        #expect(failure.retryAfter == .seconds(30))
        #expect(failure.failedRequests == 1)
        #expect(clock.sleeps.isEmpty)  // never shortened: no wait at all
        #expect(await client.cooldown(for: Fixture.origin) == .seconds(30))

        clock.advance(by: .seconds(10))
        let second = await #expect(throws: HTTPFailure.self) {
            try await client.send(HTTPRequest(url: Fixture.url), kind: .refresh, budget: try budget())
        }
        #expect(serverFailure(second)?.retryAfter == .seconds(20))
        #expect(serverFailure(second)?.failedRequests == 0)
        #expect(transport.callCount == 1)  // not sent

        clock.advance(by: .seconds(20))
        #expect(await client.cooldown(for: Fixture.origin) == nil)
        let response = try await client.send(HTTPRequest(url: Fixture.url), kind: .read, budget: try budget())
        #expect(response.status == 200)
        #expect(transport.callCount == 2)
    }

    @Test func cooldownIsPerOrigin() async throws {  // R8
        let transport = ScriptedTransport([.status(429, headers: ["Retry-After": "60"]), .status(200)])
        let client = client(transport)
        _ = try? await client.send(HTTPRequest(url: Fixture.url), kind: .codeExchange, budget: try budget())
        #expect(await client.cooldown(for: Fixture.origin) == .seconds(60))
        let other = try #require(URL(string: "https://rs.example/api"))
        let response = try await client.send(HTTPRequest(url: other), kind: .read, budget: try budget())
        #expect(response.status == 200)
    }

    @Test func backoffThatDoesNotFitTheBudgetStops() async throws {  // R1
        let policy = RetryPolicy(maxAttempts: 10, totalBudget: .seconds(1), baseDelay: .milliseconds(400), maxDelay: .seconds(5))
        let transport = ScriptedTransport([.status(502)], clock: clock, callDuration: .milliseconds(100))
        let budget = try budget(policy)
        let error = await #expect(throws: HTTPFailure.self) {
            try await client(transport).send(HTTPRequest(url: Fixture.url), kind: .read, budget: budget)
        }
        #expect(serverFailure(error)?.status == 502)
        #expect(transport.callCount < 10)
        #expect(budget.spent <= .seconds(1))
        #expect(clock.sleeps.reduce(.zero, +) + .milliseconds(100) * transport.callCount == budget.spent)
    }

    @Test func budgetIsSharedAcrossStepsOfOneOperation() async throws {  // R1
        let retryAfter: HTTPHeaders = ["Retry-After": "4"]
        let script: [ScriptedTransport.Step] = [.status(500), .status(200), .status(503, headers: retryAfter), .status(200)]
        let policy = RetryPolicy(totalBudget: .seconds(5))
        // With a fresh budget, the same second step waits out the 4 s and succeeds.
        let fresh = ScriptedTransport(script, clock: clock, callDuration: .seconds(1))
        let freshClient = client(fresh)
        _ = try await freshClient.send(HTTPRequest(url: Fixture.url), kind: .read, budget: try budget(policy))
        let second = try await freshClient.send(HTTPRequest(url: Fixture.url), kind: .read, budget: try budget(policy))
        #expect(second.status == 200)

        // Within one operation, the first step's failed request and backoff leave too little.
        let shared = ScriptedTransport(script, clock: clock, callDuration: .seconds(1))
        let sharedClient = client(shared)
        let budget = try budget(policy)
        _ = try await sharedClient.send(HTTPRequest(url: Fixture.url), kind: .read, budget: budget)
        #expect(budget.failedRequests == 1)
        #expect(budget.spent > .seconds(1))  // the failed request and the wait; the 2xx costs nothing
        let error = await #expect(throws: HTTPFailure.self) {
            try await sharedClient.send(HTTPRequest(url: Fixture.url), kind: .read, budget: budget)
        }
        #expect(serverFailure(error)?.failedRequests == 2)
        #expect(serverFailure(error)?.retryAfter == .seconds(4))
        #expect(shared.callCount == 3)
    }

    @Test func invalidURLIsAConfigurationError() async throws {
        let url = try #require(URL(string: "/no/host"))
        let transport = ScriptedTransport([.status(200)])
        let error = await #expect(throws: HTTPFailure.self) {
            try await client(transport).send(HTTPRequest(url: url), kind: .read, budget: try budget())
        }
        guard case .misconfigured = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(transport.callCount == 0)
    }

    @Test func cancelledWhileWaitingIsSystemCancelled() async throws {
        let transport = CancellingTransport(ScriptedTransport([.status(500), .status(200)]))
        let client = client(transport)
        let budget = try budget()
        let error = await #expect(throws: HTTPFailure.self) {
            try await client.send(HTTPRequest(url: Fixture.url), kind: .read, budget: budget)
        }
        #expect(error == .cancelled)
        #expect(transport.inner.callCount == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func cancelledBeforeSendingSendsNothing() async throws {
        let transport = ScriptedTransport([.status(200)])
        let client = client(transport)
        let budget = try budget()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(HTTPRequest(url: Fixture.url), kind: .read, budget: budget)
        }
        let result = await task.result
        guard case .failure(let error) = result else { Issue.record("got \(result)"); return }
        #expect(error as? HTTPFailure == .cancelled)
        #expect(transport.callCount == 0)
    }
}

/// Cancels the calling task during its first send, as a user abandoning the operation would.
final class CancellingTransport: HTTPTransport {
    let inner: ScriptedTransport

    init(_ inner: ScriptedTransport) {
        self.inner = inner
    }

    func send(_ request: HTTPRequest, options: TransportOptions) async throws(TransportError) -> HTTPResponse {
        withUnsafeCurrentTask { $0?.cancel() }
        return try await inner.send(request, options: options)
    }
}

/// The cause a failed exchange reports: a status is a server failure, anything else a network one.
private func expectedCause(_ step: ScriptedTransport.Step) -> String {
    if case .status = step { return "server" }
    return "network"
}
