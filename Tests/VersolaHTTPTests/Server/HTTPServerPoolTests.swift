import Dispatch
import Foundation
import Testing

@testable import VersolaHTTP

/// The server answers at the pace of its own threads, not of Swift's global pool: with every
/// pool thread held (and many more jobs queued behind them), a handler that calls into an actor
/// is still answered at once, because its jobs run on the connection's thread.
@Suite struct HTTPServerPoolTests {
    /// Counts the requests served; the handler's hop into it is what needs an executor.
    actor Counter {
        private(set) var value = 0
        func next() -> Int {
            value += 1
            return value
        }
    }

    /// Holds a pool thread until the gate opens (or 60 s pass, so that a regression ends).
    final class PoolHolders: @unchecked Sendable {
        private let lock = NSLock()
        private var started = 0
        private let gate = DispatchSemaphore(value: 0)
        let count: Int

        init(count: Int) { self.count = count }

        func hold() {
            lock.lock()
            started += 1
            lock.unlock()
            _ = gate.wait(timeout: .now() + 60)
        }

        var startedCount: Int {
            lock.lock()
            defer { lock.unlock() }
            return started
        }

        func release() {
            for _ in 0..<count { gate.signal() }
        }
    }

    @Test func aHandlerIsAnsweredWhileEveryPoolThreadIsBusy() async throws {
        let counter = Counter()
        let server = try HTTPServer.start { _ in .respond(.text("served \(await counter.next())")) }
        try await withServer(server) { server in
            let (address, port) = (server.address, server.port)
            let width = ProcessInfo.processInfo.activeProcessorCount
            // Many more holders than pool threads: a pool that grows still finds only holders ahead
            // of any job queued after them.
            let holders = PoolHolders(count: 64 * max(1, width))
            for _ in 0..<holders.count {
                Task.detached { holders.hold() }
            }
            let outcome = await offPool { () -> (held: Int, answer: Result<RawClient.Response, RawClient.Ending>) in
                // Wait (on this thread, not the pool) until the pool's threads are all held; in a
                // full test run the holders queue behind other tests' jobs for a while.
                var spins = 0
                while holders.startedCount < width && spins < 30_000 {
                    usleep(1_000)
                    spins += 1
                }
                let held = holders.startedCount
                let answer: Result<RawClient.Response, RawClient.Ending>
                if let client = RawClient(address: address, port: port, timeoutSeconds: 10) {
                    client.send(HTTPServerTests.get("/any"))
                    answer = client.readResponse()
                } else {
                    answer = .failure(.failed(-1))
                }
                holders.release()
                return (held, answer)
            }
            #expect(outcome.held >= width, "the pool's threads were held when the request was sent")
            let response = try outcome.answer.get()
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "served 1")
        }
    }
}
