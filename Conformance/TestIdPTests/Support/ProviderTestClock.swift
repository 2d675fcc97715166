import Foundation
import Synchronization

/// A clock the tests move by hand: the provider reads it, nothing ever sleeps.
final class ProviderTestClock: Sendable {
    private let current: Mutex<Date>

    /// Starts at a fixed, whole-second moment so claims compare exactly.
    init(start: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        current = Mutex(start)
    }

    /// The time now.
    var now: Date { current.withLock { $0 } }

    /// The time now in whole seconds since 1970, as JWT claims carry it.
    var seconds: Int64 { Int64(now.timeIntervalSince1970) }

    /// Moves the clock forward (or back, with a negative value).
    func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }

    /// The closure a ``TestProvider`` takes as its clock.
    var source: @Sendable () -> Date { { [self] in now } }
}
