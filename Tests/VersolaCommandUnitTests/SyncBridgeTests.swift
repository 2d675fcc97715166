import Dispatch
import Synchronization
import Testing

@testable import VersolaCommand

/// The command's one crossing between blocking threads and tasks (``SyncBridge``).
@Suite("Sync bridge")
struct SyncBridgeTests {
    // A blocking thread gets the task's value back, whatever it is (nil included).
    @Test func aBlockingThreadGetsTheTasksValue() async {
        let number = await SyncBridge.run {
            SyncBridge.wait {
                await Task.yield()
                return 42
            }
        }
        #expect(number == 42)
        let nothing: String? = await SyncBridge.run { SyncBridge.wait { nil } }
        #expect(nothing == nil)
    }

    // Blocking work never waits for a free thread of the cooperative pool (two on a 2-core
    // machine): six bodies that each block until all six are blocking all get through.
    @Test func blockingWorkRunsOnThreadsOfItsOwn() async {
        let gate = Gate(parties: 6)
        let passed = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<6 { group.addTask { await SyncBridge.run { gate.arriveAndWait() } } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(passed == 6)
    }

    /// Opens when all its parties have arrived; a party gives up after 30 s (the test then fails).
    final class Gate: Sendable {
        private let arrived = Mutex(0)
        private let open = DispatchSemaphore(value: 0)
        private let parties: Int

        init(parties: Int) {
            self.parties = parties
        }

        func arriveAndWait() -> Bool {
            let last = arrived.withLock { count in
                count += 1
                return count == parties
            }
            if last { for _ in 0..<parties { open.signal() } }
            return open.wait(timeout: .now() + .seconds(30)) == .success
        }
    }
}
