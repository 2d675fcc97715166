import Foundation
import Synchronization

/// Runs async work from a plain thread (a connection thread, never the cooperative pool),
/// blocking that thread until the work is done, and running the work's jobs on that very
/// thread while it waits.
///
/// The work is started as a task whose executor preference is this bridge, so its jobs (and
/// those of the default actors it calls into while they are free) are handed here instead of
/// to Swift's global pool. The server therefore answers at the pace of its own threads even
/// when every pool thread is busy: a test run with hundreds of tests on two cores, or an app
/// whose pool is saturated while the loopback listener waits for the browser. A job that
/// arrives while no work is being waited for (a late one, or after the thread has moved on)
/// goes to the global executor, so no job is ever left unrun.
final class BlockingBridge: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var waiting = false
    private var finished = false

    /// Runs `body` to its end, serving its jobs on the calling thread. Nil never happens in
    /// practice: the task always stores a value before it ends.
    func wait<Value: Sendable>(for body: @escaping @Sendable () async -> Value) -> Value? {
        let result = Mutex<Value?>(nil)
        condition.lock()
        waiting = true
        finished = false
        condition.unlock()
        Task(executorPreference: self) { [self] in
            let value = await body()
            result.withLock { $0 = value }
            markFinished()
        }
        drainUntilFinished()
        return result.withLock { $0.take() }
    }

    private func markFinished() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func drainUntilFinished() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            let batch = jobs
            jobs = []
            let done = finished && batch.isEmpty
            if done { waiting = false }
            condition.unlock()
            if done { return }
            for job in batch { job.runSynchronously(on: executor) }
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        if waiting {
            jobs.append(job)
            condition.signal()
            condition.unlock()
        } else {
            condition.unlock()
            globalConcurrentExecutor.enqueue(job)
        }
    }
}
