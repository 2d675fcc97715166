import Dispatch
import Foundation
import Testing

@testable import VersolaHTTP

/// The server answers at the pace of its own threads, not of Swift's global pool: with the pool
/// backed up behind jobs that never finish, a handler that calls into an actor is still
/// answered at once, because its jobs run on the connection's thread.
///
/// What makes the test hold is the queue, not a count of threads. libdispatch on Linux grows the
/// pool while its threads are blocked, and in a full run other tests' jobs hold pool threads of
/// their own, so "every pool thread runs a holder" is neither stable nor observable. What is: the
/// holders are queued before the request, and while some of them have still not started, a job
/// queued after them (where a handler's job would go if the server used the pool) cannot have run.
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

    @Test func aHandlerIsAnsweredWhileThePoolIsBackedUp() async throws {
        let counter = Counter()
        let server = try HTTPServer.start { _ in .respond(.text("served \(await counter.next())")) }
        try await withServer(server) { server in
            let (address, port) = (server.address, server.port)
            let width = ProcessInfo.processInfo.activeProcessorCount
            // Far more holders than the pool can start before the request's 10 s timeout, even
            // growing by a thread or so a second.
            let holders = PoolHolders(count: 64 * max(1, width))
            for _ in 0..<holders.count {
                Task.detached { holders.hold() }
            }
            let outcome = await offPool { () -> (startedAtAnswer: Int, answer: Result<RawClient.Response, RawClient.Ending>) in
                // Give the pool a moment to take up holders, so that in the common case its
                // threads are held too; the test does not depend on it (see above).
                var spins = 0
                while holders.startedCount < width && spins < 2_000 {
                    usleep(1_000)
                    spins += 1
                }
                let answer: Result<RawClient.Response, RawClient.Ending>
                if let client = RawClient(address: address, port: port, timeoutSeconds: 10) {
                    client.send(HTTPServerTests.get("/any"))
                    answer = client.readResponse()
                } else {
                    answer = .failure(.failed(-1))
                }
                let startedAtAnswer = holders.startedCount
                holders.release()
                return (startedAtAnswer, answer)
            }
            #expect(
                outcome.startedAtAnswer < holders.count,
                "all \(holders.count) holders had started when the answer came: the pool was not backed up")
            let response = try outcome.answer.get()
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "served 1")
        }
    }
}
