import Synchronization

/// Origins that asked, through `Retry-After`, not to be called before some time (R8).
///
/// Deadlines are monotonic readings of the injected clock. An entry disappears once its time
/// has passed.
final class OriginCooldowns: Sendable {
    /// One origin's cooldown: until when, and the status that started it.
    struct Entry: Sendable, Hashable {
        var until: Duration
        var status: Int
    }

    private let entries = Mutex<[Origin: Entry]>([:])

    /// The time left and the status that started it, or nil when the origin may be called.
    func active(for origin: Origin, now: Duration) -> (remaining: Duration, status: Int)? {
        entries.withLock { entries in
            guard let entry = entries[origin] else { return nil }
            guard entry.until > now else {
                entries[origin] = nil
                return nil
            }
            return (entry.until - now, entry.status)
        }
    }

    /// Closes the origin until `until`, keeping the later deadline if one is already set.
    func close(_ origin: Origin, until: Duration, status: Int) {
        entries.withLock { entries in
            if let existing = entries[origin], existing.until >= until { return }
            entries[origin] = Entry(until: until, status: status)
        }
    }
}
