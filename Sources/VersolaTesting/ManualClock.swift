import VersolaHTTP
import Foundation
import Synchronization

/// A clock that moves only when told: `sleep` advances it at once and records the wait, so
/// tests of retries, budgets and cooldowns never wait in real time.
///
/// ```swift
/// let clock = ManualClock()
/// try await clock.sleep(for: .seconds(2))   // returns at once
/// clock.sleeps                               // [.seconds(2)]
/// clock.advance(by: .seconds(30))            // time passes for cooldowns and tokens
/// ```
public final class ManualClock: VersolaClock {
    private struct State {
        var monotonic: Duration
        var wall: Date
        var sleeps: [Duration]
    }

    private let state: Mutex<State>

    /// Creates a clock at a monotonic reading of zero and the given wall time.
    /// - Parameter wallClock: the starting wall time; default 2025-01-01T00:00:00Z.
    public init(wallClock: Date = Date(timeIntervalSince1970: 1_735_689_600)) {
        state = Mutex(State(monotonic: .zero, wall: wallClock, sleeps: []))
    }

    /// The current monotonic reading.
    public var monotonicNow: Duration { state.withLock { $0.monotonic } }

    /// The current wall time.
    public var wallClockNow: Date { state.withLock { $0.wall } }

    /// Every wait asked of ``sleep(for:)``, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// Records the wait and moves both readings forward by it (a negative wait counts as zero).
    /// - Throws: `CancellationError` when the task is already cancelled.
    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(duration)
            Self.move(&state, by: duration)
        }
    }

    /// Moves both readings forward by `duration` without recording a sleep.
    public func advance(by duration: Duration) {
        state.withLock { Self.move(&$0, by: duration) }
    }

    /// Sets the wall time alone (a clock that jumps, or is set wrong), leaving monotonic time.
    public func setWallClock(_ date: Date) {
        state.withLock { $0.wall = date }
    }

    private static func move(_ state: inout State, by duration: Duration) {
        guard duration > .zero else { return }
        state.monotonic += duration
        let (seconds, attoseconds) = duration.components
        state.wall = state.wall.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }
}
