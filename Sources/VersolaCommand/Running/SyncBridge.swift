import Dispatch
import Synchronization
import VersolaHTTP

/// The command's one crossing between blocking threads and Swift's tasks, both ways.
///
/// The command's blocking threads (the main thread, the thread reading a pasted redirect, an
/// agent connection's thread) run async work with ``wait(for:)``; async work runs blocking
/// code (the agent's accept loop) with ``run(blocking:)``, on a thread of its own. Neither
/// ever blocks a thread of the cooperative pool, which on a 2-core machine has two.
///
/// ```swift
/// let status = SyncBridge.wait { await CommandRunner.run(context) }
/// ```
enum SyncBridge {
    /// Runs `work` as a task and blocks the calling thread until it ends.
    /// The caller must not be a thread of the cooperative pool (not inside a task).
    static func wait<Value: Sendable>(for work: @escaping @Sendable () async -> Value) -> Value {
        let handoff = Handoff<Value>()
        Task { handoff.deliver(await work()) }
        return handoff.take()
    }

    /// Runs blocking `work` on a thread of its own and returns its result, leaving the
    /// cooperative pool free meanwhile.
    static func run<Value: Sendable>(blocking work: @escaping @Sendable () -> Value) async -> Value {
        await DedicatedThread.run(work)
    }

    /// One value, handed from a task to the thread blocked for it.
    private final class Handoff<Value: Sendable>: Sendable {
        private let value = Mutex<Value?>(nil)
        private let done = DispatchSemaphore(value: 0)

        func deliver(_ result: Value) {
            value.withLock { $0 = result }
            done.signal()
        }

        func take() -> Value {
            done.wait()
            guard let result = value.withLock({ $0 }) else { preconditionFailure("handed over before it was delivered") }
            return result
        }
    }
}
