import Dispatch

/// Runs async work from a plain thread (a connection thread, never the cooperative pool)
/// and blocks that thread until the work is done.
enum BlockingBridge {
    private final class Slot<Value: Sendable>: Sendable {
        let value = ServerLocked<Value?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    /// Starts `body` in a detached task and waits for its result (nil never happens in
    /// practice: the task always stores a value before signalling).
    static func wait<Value: Sendable>(for body: @escaping @Sendable () async -> Value) -> Value? {
        let slot = Slot<Value>()
        Task.detached {
            let result = await body()
            slot.value.withLock { $0 = result }
            slot.done.signal()
        }
        slot.done.wait()
        return slot.value.withLock { $0.take() }
    }
}
