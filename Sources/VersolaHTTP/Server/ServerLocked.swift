import Foundation

/// A value guarded by a pthread-backed lock. Used instead of `Synchronization.Mutex`
/// because the thread sanitizer understands pthread mutexes but not Mutex's futexes, so
/// server code stays free of false race reports under `--sanitize thread`.
final class ServerLocked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
