import Foundation
import Testing
import Versola
import VersolaHTTP

/// The scenario clock itself: short waits pass by themselves, long ones only when time is
/// advanced to them, and none waits in real time.
@Suite struct ScenarioClockTests {
    @Test func aWaitWithinTheRetryBudgetPassesAtOnceAndMovesTheClock() async throws {
        let clock = ScenarioClock()
        let start = clock.monotonicNow
        // A Retry-After of 90 s: over the old 60 s split (which slept an hour), within the budget.
        try await clock.sleep(for: .seconds(90))
        #expect(clock.monotonicNow - start == .seconds(90))
        #expect(clock.manual.sleeps == [.seconds(90)])
    }

    @Test func aLongWaitEndsOnlyWhenTimeIsAdvancedToIt() async throws {
        let clock = ScenarioClock()
        let waiter = Task { try await clock.sleep(for: .seconds(300)) }
        while clock.suspendedSleeps == 0 { await Task.yield() }
        clock.advance(by: .seconds(299))
        #expect(clock.suspendedSleeps == 1)
        clock.advance(by: .seconds(1))
        try await waiter.value
        #expect(clock.suspendedSleeps == 0)
    }

    @Test func shortWaitsOfOthersBringALongWaitToItsDeadline() async throws {
        let clock = ScenarioClock()
        let waiter = Task { try await clock.sleep(for: .seconds(200)) }
        while clock.suspendedSleeps == 0 { await Task.yield() }
        try await clock.sleep(for: .seconds(100))
        #expect(clock.suspendedSleeps == 1)
        try await clock.sleep(for: .seconds(100))
        try await waiter.value
    }

    @Test func cancellingALongWaitEndsItWithCancellation() async throws {
        let clock = ScenarioClock()
        let waiter = Task { try await clock.sleep(for: .seconds(3600)) }
        while clock.suspendedSleeps == 0 { await Task.yield() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(clock.suspendedSleeps == 0)
    }
}
