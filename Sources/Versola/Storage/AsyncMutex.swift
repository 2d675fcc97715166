import VersolaHTTP
import Synchronization

/// A first-come, first-served lock for tasks: waiting suspends the task instead of
/// blocking a thread. Not reentrant; waiting is not cancellable (the holders are short).
final class AsyncMutex: Sendable {
    private struct State {
        var isLocked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    init() {}

    /// Waits until the lock is free, then holds it.
    func lock() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { state -> Bool in
                if state.isLocked {
                    state.waiters.append(continuation)
                    return false
                }
                state.isLocked = true
                return true
            }
            if acquired { continuation.resume() }
        }
    }

    /// Hands the lock to the longest waiter, or frees it.
    func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.nextWaiter < state.waiters.count else {
                state.waiters.removeAll(keepingCapacity: true)
                state.nextWaiter = 0
                state.isLocked = false
                return nil
            }
            let waiter = state.waiters[state.nextWaiter]
            state.nextWaiter += 1
            return waiter
        }
        next?.resume()
    }
}
