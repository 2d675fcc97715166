import Foundation

/// Runs blocking work (a libcurl transfer, a contended `flock`, a child process, scrypt) on a
/// thread of its own, so that it never holds a thread that Swift tasks need.
///
/// On Linux, Swift's global executor runs tasks on libdispatch's global root queues, and
/// `DispatchQueue.global()` and concurrent queues run on those very threads. Their pool grows
/// past the number of cores only slowly (about one thread per second while every thread is
/// blocked), so a few blocking calls there stall every task in the process for seconds: on two
/// cores, two stalled transfers were enough to freeze a whole test run for 15 s. A new thread
/// per call costs tens of microseconds, nothing beside the work it carries.
package enum DedicatedThread {
    /// Runs `body` on a new thread and returns its result.
    package static func run<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
            start { continuation.resume(returning: body()) }
        }
    }

    /// Starts `body` on a new thread and returns at once.
    package static func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = 1 << 20
        thread.start()
    }
}
