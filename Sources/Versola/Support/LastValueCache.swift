import Synchronization

/// The value last computed for one key, shared by the copies of the value type that holds it
/// (a ``DPoPKey`` keeps the `ath` of the last access token and the `htu` of the last URL its
/// proofs were made for: a client sends one token to one resource many times).
final class LastValueCache<Key: Equatable & Sendable, Value: Sendable>: Sendable {
    private let entry = Mutex<(key: Key, value: Value)?>(nil)

    /// The value for `key`: the one kept when `key` is the last key asked for, else `make(key)`,
    /// which is then kept in its place.
    func value(for key: Key, _ make: (Key) -> Value) -> Value {
        // Compared where it is kept: only the value is copied out.
        if let value = entry.withLock({ $0?.key == key ? $0?.value : nil }) { return value }
        let value = make(key)
        entry.withLock { $0 = (key, value) }
        return value
    }
}
