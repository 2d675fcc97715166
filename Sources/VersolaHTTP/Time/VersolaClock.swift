import Foundation

/// The engine's view of time, injected so that tests drive it by hand.
///
/// ```swift
/// let start = clock.monotonicNow
/// try await clock.sleep(for: .milliseconds(250))
/// let spent = clock.monotonicNow - start
/// print("slept for", spent)
/// ```
public protocol VersolaClock: Sendable {
    /// A monotonic reading: time since an arbitrary, fixed origin. Never goes backwards;
    /// used for budgets, delays and cooldowns.
    var monotonicNow: Duration { get }
    /// The wall-clock time, for HTTP dates (`Retry-After`) and token `exp`/`iat`.
    var wallClockNow: Date { get }
    /// Waits for `duration` of this clock's time.
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    func sleep(for duration: Duration) async throws
}
