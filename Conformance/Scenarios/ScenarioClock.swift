import Foundation
import Synchronization
import Versola
import VersolaTesting
import VersolaHTTP

/// A clock for scenarios, on virtual time that moves only by itself for short waits or when
/// the scenario advances it; it never waits in real time.
///
/// - A wait of at most ``autoAdvanceLimit`` (every wait the retry layer can ask for: a retry
///   never outlasts its operation's budget, at most ``RetryPolicy/maximumTotalBudget``) moves
///   the clock forward by itself and returns at once, as on ``ManualClock``.
/// - A longer wait (a login's browser timeout) suspends until ``advance(by:)`` (or the short
///   waits of others) brings the clock to its deadline, or until its task is cancelled. So a
///   login timeout fires only when the scenario says that much time has passed.
final class ScenarioClock: VersolaClock {
    /// The longest wait that passes by itself.
    static let autoAdvanceLimit: Duration = RetryPolicy.maximumTotalBudget

    /// The longest wait that passes by itself on this clock: ``autoAdvanceLimit``, unless a
    /// scenario wants a background timer (the write retry of a held-back record, P10) to wait
    /// for it to move time. Passing by itself, such a timer's every turn moved the clock, as
    /// fast as the processor let it, and a token minted a moment before read as expired.
    let passesByItself: Duration

    /// A clock on which waits up to `limit` pass by themselves.
    init(passingByItself limit: Duration = ScenarioClock.autoAdvanceLimit) {
        passesByItself = limit
    }

    private struct Sleeper {
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
    }

    /// The readings: monotonic and wall time, and the record of waits.
    let manual = ManualClock(wallClock: Date())
    private let state = Mutex(State())

    var monotonicNow: Duration { manual.monotonicNow }
    var wallClockNow: Date { manual.wallClockNow }

    /// How many waits are suspended now (those longer than ``autoAdvanceLimit``).
    var suspendedSleeps: Int { state.withLock { $0.sleepers.count } }

    func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        if duration <= passesByItself {
            try await manual.sleep(for: duration)
            wakeDueSleepers()
            return
        }
        let deadline = manual.monotonicNow + duration
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    // Cancelled before it got here, or the clock already passed the deadline.
                    if Task.isCancelled || manual.monotonicNow >= deadline { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration` and wakes every wait whose deadline it reaches.
    func advance(by duration: Duration) {
        manual.advance(by: duration)
        wakeDueSleepers()
    }

    /// Sets the wall time alone (a clock that jumps, or is set wrong), leaving monotonic time.
    func setWallClock(_ date: Date) {
        manual.setWallClock(date)
    }

    private func wakeDueSleepers() {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            let now = manual.monotonicNow
            let ids = state.sleepers.filter { $0.value.deadline <= now }.map(\.key)
            return ids.compactMap { state.sleepers.removeValue(forKey: $0)?.continuation }
        }
        for continuation in due { continuation.resume() }
    }
}
