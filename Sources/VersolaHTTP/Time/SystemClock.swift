import Foundation

/// The real clock: `ContinuousClock` for monotonic time and sleeping, `Date()` for wall time.
public struct SystemClock: VersolaClock {
    private let origin: ContinuousClock.Instant

    /// Creates a clock whose monotonic origin is the moment of creation.
    public init() {
        origin = ContinuousClock.now
    }

    /// Time since this clock was created, on the continuous (monotonic) clock.
    public var monotonicNow: Duration { origin.duration(to: ContinuousClock.now) }

    /// The current wall-clock time.
    public var wallClockNow: Date { Date() }

    /// Sleeps for `duration` on the continuous clock.
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration, clock: .continuous)
    }
}
