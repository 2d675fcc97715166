import Foundation
import Testing

@testable import VersolaHTTP
import VersolaTesting
import VersolaTestIdP

/// The retry engine over the real libcurl transport and the scripted server: for each cell of
/// the repeat table that a transport can produce, how many requests the server actually saw
/// (R4–R7). Backoff waits run on the manual clock; only the transport's own timeout is real.
@Suite struct RetryingClientServerTests {
    /// One server behaviour and the table outcome it produces.
    struct Cell: Sendable, CustomTestStringConvertible {
        var outcome: RequestOutcome
        var action: ScriptedServer.Action
        var testDescription: String { outcome.rawValue }
    }

    static let attempts = 3

    static let cells: [Cell] = [
        Cell(outcome: .failedAfterSending, action: .closeAfterReading),
        Cell(outcome: .failedAfterSending, action: .resetAfterReading),
        Cell(outcome: .failedAfterSending, action: .truncatedHeaders),
        Cell(outcome: .timedOut, action: .stall),
        Cell(outcome: .tooLarge, action: .respondUndeclaredLength(status: 200, body: [UInt8](repeating: 1, count: 5000))),
        Cell(outcome: .status408, action: .respond(status: 408)),
        Cell(outcome: .status429, action: .respond(status: 429)),
        Cell(outcome: .status500, action: .respond(status: 500)),
        Cell(outcome: .status501, action: .respond(status: 501)),
        Cell(outcome: .status502, action: .respond(status: 502)),
        Cell(outcome: .status503, action: .respond(status: 503)),
        Cell(outcome: .status504, action: .respond(status: 504)),
        Cell(outcome: .status505, action: .respond(status: 505)),
        Cell(outcome: .otherServerError, action: .respond(status: 507)),
        Cell(outcome: .otherClientError, action: .respond(status: 400)),
        Cell(outcome: .redirect, action: .respond(status: 302, headers: [("Location", "https://elsewhere.example/")])),
        Cell(outcome: .success, action: .respond(status: 200)),
    ]

    /// The transport's real timeout only bounds a server that never answers: it is short for
    /// the cell that stalls on purpose, and wide for every other, which a loaded machine (the
    /// thread sanitizer's run on two cores) may answer late.
    static func options(stalling: Bool = false) -> TransportOptions {
        TransportOptions(
            connectTimeout: .seconds(20), totalTimeout: stalling ? .milliseconds(300) : .seconds(30),
            maxResponseBodyBytes: 1000)
    }

    func client(_ transport: any HTTPTransport, clock: ManualClock, stalling: Bool = false) -> RetryingClient {
        RetryingClient(
            transport: transport, clock: clock, random: SeededRandomSource(seed: 3),
            defaultOptions: Self.options(stalling: stalling))
    }

    // R4 R5 R6 R7: the server sees `attempts` requests exactly when the table repeats the cell.
    @Test(arguments: OperationKind.allCases, cells)
    func serverSeesTheRepeatsTheTableAllows(kind: OperationKind, cell: Cell) async throws {
        let server = try ScriptedServer([cell.action])
        defer { server.stop() }
        let clock = ManualClock()
        let budget = try OperationBudget(policy: RetryPolicy(maxAttempts: Self.attempts), clock: clock)
        // Expectations written from the SPEC in RetryTableTests, not read from the table under test.
        let repeats = RetryTableTests.repeated[kind]?.contains(cell.outcome) ?? false
        let conclusion = RetryTableTests.expectedConclusion(kind, cell.outcome)
        let result: Result<HTTPResponse, HTTPFailure>
        do {
            result = .success(try await client(CurlTransport(), clock: clock, stalling: cell.outcome == .timedOut).send(
                HTTPRequest(method: .post, url: server.url(), body: Array("x=1".utf8)), kind: kind, budget: budget))
        } catch {
            result = .failure(error)
        }
        let expected = cell.outcome == .success ? 1 : (repeats ? Self.attempts : 1)
        #expect(server.requestCount == expected, "\(kind) × \(cell.outcome)")
        #expect(clock.sleeps.count == expected - 1)
        switch (conclusion, result) {
        case (.response, .success): break
        case (.serverFailure, .failure(.server(let failure))):
            #expect(failure.failedRequests == expected)
        case (.networkFailure, .failure(.network)): break
        case (.redirectRefused, .failure(.misconfigured)): break
        default: Issue.record("\(kind) × \(cell.outcome): expected \(conclusion), got \(result)")
        }
    }

    // R5 R6: a refused connection wrote nothing; repeated for read, refresh and application,
    // never for the code exchange (R4). The server cannot count these, so the transport is counted.
    @Test(arguments: OperationKind.allCases)
    func refusedConnectionRepeats(kind: OperationKind) async throws {
        let refusing = try #require(RefusingPort())
        let url = try #require(URL(string: "http://127.0.0.1:\(refusing.port)/token"))
        let clock = ManualClock()
        let transport = CountingTransport(CurlTransport())
        let budget = try OperationBudget(policy: RetryPolicy(maxAttempts: Self.attempts), clock: clock)
        let error = await #expect(throws: HTTPFailure.self) {
            try await client(transport, clock: clock).send(HTTPRequest(url: url), kind: kind, budget: budget)
        }
        guard case .network(let failure) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(failure.kind == .couldNotConnect)
        #expect(!failure.requestBytesWritten)
        #expect(transport.callCount == (kind == .codeExchange || kind == .probe ? 1 : Self.attempts))
        withExtendedLifetime(refusing) {}
    }

    // R8: a Retry-After longer than the remaining budget stops at once; the origin is closed
    // (server count unchanged) until the test clock passes it.
    @Test func retryAfterBeyondBudgetClosesTheOriginUntilTheClockPassesIt() async throws {
        let server = try ScriptedServer([.respond(status: 503, headers: [("Retry-After", "45")]), .respond(status: 200)])
        defer { server.stop() }
        let clock = ManualClock()
        let client = client(CurlTransport(), clock: clock)
        let first = await #expect(throws: HTTPFailure.self) {
            try await client.send(HTTPRequest(url: server.url()), kind: .read, budget: try OperationBudget(clock: clock))
        }
        guard case .server(let failure) = first else { Issue.record("got \(String(describing: first))"); return }
        #expect(failure.retryAfter == .seconds(45))
        #expect(failure.status == 503)
        #expect(server.requestCount == 1)
        #expect(clock.sleeps.isEmpty)

        clock.advance(by: .seconds(44))
        let thrown = await #expect(throws: HTTPFailure.self) {
            try await client.send(HTTPRequest(url: server.url()), kind: .read, budget: try OperationBudget(clock: clock))
        }
        #expect(thrown?.caseName == "server", "got \(String(describing: thrown))")
        #expect(server.requestCount == 1)  // not sent
        #expect(await client.cooldown(for: server.origin) == .seconds(1))

        clock.advance(by: .seconds(1))
        let response = try await client.send(HTTPRequest(url: server.url()), kind: .read, budget: try OperationBudget(clock: clock))
        #expect(response.status == 200)
        #expect(server.requestCount == 2)
    }

    // R8: a Retry-After that fits is waited exactly, on the clock, and the request repeated.
    @Test func retryAfterThatFitsIsWaitedAndRepeated() async throws {
        let server = try ScriptedServer([.respond(status: 429, headers: [("Retry-After", "2")]), .respond(status: 200)])
        defer { server.stop() }
        let clock = ManualClock()
        let response = try await client(CurlTransport(), clock: clock).send(
            HTTPRequest(url: server.url()), kind: .read, budget: try OperationBudget(clock: clock))
        #expect(response.status == 200)
        #expect(clock.sleeps == [.seconds(2)])
        #expect(server.requestCount == 2)
    }

    // R4 A6: the code exchange after a kept-alive request is not silently re-sent when its
    // connection dies (with reuse, libcurl would send it twice: CurlTransportTests shows that).
    @Test func codeExchangeOverAReusedThenDeadConnectionIsSentOnce() async throws {
        let server = try ScriptedServer([.respond(status: 200, keepAlive: true), .closeAfterReading, .respond(status: 200)])
        defer { server.stop() }
        let clock = ManualClock()
        let client = client(CurlTransport(), clock: clock)
        _ = try await client.send(HTTPRequest(url: server.url("/.well-known/openid-configuration")), kind: .read, budget: try OperationBudget(clock: clock))
        let exchange = HTTPRequest(method: .post, url: server.url("/token"), body: Array("grant_type=authorization_code".utf8))
        let error = await #expect(throws: HTTPFailure.self) {
            try await client.send(exchange, kind: .codeExchange, budget: try OperationBudget(clock: clock))
        }
        guard case .network(let failure) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(failure.kind == .failedAfterSending)
        #expect(server.requests.map(\.target) == ["/.well-known/openid-configuration", "/token"])
    }

    // R6: the same for a refresh.
    @Test func refreshOverAReusedThenDeadConnectionIsSentOnce() async throws {
        let server = try ScriptedServer([.respond(status: 200, keepAlive: true), .closeAfterReading, .respond(status: 200)])
        defer { server.stop() }
        let clock = ManualClock()
        let client = client(CurlTransport(), clock: clock)
        _ = try await client.send(HTTPRequest(url: server.url("/jwks")), kind: .read, budget: try OperationBudget(clock: clock))
        let thrown2 = await #expect(throws: HTTPFailure.self) {
            try await client.send(
                HTTPRequest(method: .post, url: server.url("/token"), body: Array("grant_type=refresh_token".utf8)),
                kind: .refresh, budget: try OperationBudget(clock: clock))
        }
        #expect(thrown2?.caseName == "network", "got \(String(describing: thrown2))")
        #expect(server.requests.map(\.target) == ["/jwks", "/token"])
    }
}
