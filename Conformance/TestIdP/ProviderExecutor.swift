import Foundation
import VersolaHTTP

/// The serial executor every ``TestProvider`` runs on: its jobs run on a thread of their own,
/// never on Swift's cooperative pool.
///
/// The provider answers from the HTTP server's connection threads, which run their handlers
/// without the pool. A default actor, though, may hand its queued jobs to the global executor
/// when two callers meet on it (a connection thread and a scenario asking what was sent), and
/// on a machine with two cores the pool has two threads: a test elsewhere in the run that
/// blocks them held the provider's answers back past the client's 30-second timeout. With
/// its own executor the provider answers at the pace of its own threads, whatever the pool does.
///
/// A thread drains the queue while it has jobs and ends when it is empty; the next job starts
/// another, so an idle provider holds no thread and a dropped one leaves none behind.
final class ProviderExecutor: SerialExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var draining = false

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        let start = !draining
        draining = true
        condition.unlock()
        if start { DedicatedThread.start { [self] in drain() } }
    }

    /// Runs the queued jobs one after another, in order, until none is left.
    private func drain() {
        let executor = asUnownedSerialExecutor()
        while true {
            condition.lock()
            let batch = jobs
            jobs = []
            if batch.isEmpty { draining = false }
            condition.unlock()
            if batch.isEmpty { return }
            for job in batch { job.runSynchronously(on: executor) }
        }
    }
}
