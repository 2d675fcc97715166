import Foundation
import Testing

@testable import Versola
import VersolaHTTP
import VersolaTesting

/// Counts bodies running at once.
private actor Occupancy {
    private(set) var current = 0
    private(set) var maximum = 0
    private(set) var completed = 0

    func enter() {
        current += 1
        maximum = max(maximum, current)
    }

    func leave() {
        current -= 1
        completed += 1
    }
}

/// An actor that calls `withExclusiveAccess` with a closure touching its own state: the
/// requirement must not force the body to be `Sendable` (nonisolated(nonsending)).
private actor SessionLikeOwner {
    var refreshes = 0
    let store: any SessionStore

    init(store: any SessionStore) { self.store = store }

    func refresh() async throws(VersolaError) -> Int {
        try await store.withExclusiveAccess { () throws(VersolaError) -> Int in
            _ = try await store.load()
            refreshes += 1
            return refreshes
        }
    }
}

@Suite struct ExclusiveAccessTests {
    private func runTenTasks(_ stores: [any SessionStore]) async throws {
        let occupancy = Occupancy()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<10 {
                let store = stores[index % stores.count]
                group.addTask {
                    try await store.withExclusiveAccess { () throws(VersolaError) in
                        await occupancy.enter()
                        // Give the others every chance to barge in.
                        for _ in 0..<20 { await Task.yield() }
                        var record = try await store.load() ?? StorageSamples.minimal
                        record.dpopNonces["count"] = String((Int(record.dpopNonces["count"] ?? "") ?? 0) + 1)
                        try await store.save(record)
                        await occupancy.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await occupancy.maximum == 1)
        #expect(await occupancy.completed == 10)
        // Read-modify-write under the lock lost no increment.
        #expect(try await stores[0].load()?.dpopNonces["count"] == "10")
    }

    // T2: ten tasks, one at a time.
    @Test func inMemoryStoreSerialisesTenTasks() async throws {
        try await runTenTasks([InMemorySessionStore()])
    }

    // T2: ten tasks over two store instances of one profile, one at a time.
    @Test func fileStoresSerialiseTenTasks() async throws {
        let directory = try TemporaryDirectory()
        try await runTenTasks([try StorageSamples.store(directory), try StorageSamples.store(directory)])
    }

    @Test func nestedAccessDoesNotDeadlock() async throws {
        let directory = try TemporaryDirectory()
        let store = try StorageSamples.store(directory)
        let value = try await store.withExclusiveAccess { () throws(VersolaError) -> Int in
            try await store.withExclusiveAccess { () throws(VersolaError) -> Int in 7 }
        }
        #expect(value == 7)
        let memory = InMemorySessionStore()
        #expect(try await memory.withExclusiveAccess { () throws(VersolaError) -> Int in
            try await memory.withExclusiveAccess { () throws(VersolaError) -> Int in 8 }
        } == 8)
    }

    @Test func errorsFromTheBodyPassThroughAndReleaseTheLock() async throws {
        let directory = try TemporaryDirectory()
        let store = try StorageSamples.store(directory)
        await expectError(.recoverable(.nonceLoop)) { () throws(VersolaError) in
            try await store.withExclusiveAccess { () throws(VersolaError) in throw .recoverable(.nonceLoop) }
        }
        #expect(try await store.withExclusiveAccess { () throws(VersolaError) -> Bool in true })
    }

    @Test func anActorCanUseItsStateInsideTheBody() async throws {
        let owner = SessionLikeOwner(store: InMemorySessionStore(record: StorageSamples.minimal))
        #expect(try await owner.refresh() == 1)
        #expect(try await owner.refresh() == 2)
    }

    // T2 across processes: while the body runs, another process cannot take the flock.
    @Test func anotherProcessCannotTakeTheLockDuringTheBody() async throws {
        let directory = try TemporaryDirectory()
        let store = try StorageSamples.store(directory)
        let lockFile = directory.file("versola/team/lock")
        let inside = try await store.withExclusiveAccess { () throws(VersolaError) -> Int32? in
            await Self.tryFlock(lockFile)
        }
        #expect(inside == 1)  // flock -n: busy
        #expect(await Self.tryFlock(lockFile) == 0)  // free again afterwards
    }

    // T2 across processes: while another process holds the flock, the body waits for it.
    @Test func theBodyWaitsForAnotherProcess() async throws {
        let directory = try TemporaryDirectory()
        let lockFile = directory.file("versola/team/lock")
        let marker = directory.file("child-finished")
        try FileManager.default.createDirectory(atPath: directory.file("versola/team"), withIntermediateDirectories: true)

        // The child takes the lock, says so, waits for a line, writes the marker, releases.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        child.arguments = [lockFile, "/bin/sh", "-c", "echo held; read line; echo done > \"$0\"", marker]
        let toChild = Pipe()
        let fromChild = Pipe()
        child.standardInput = toChild
        child.standardOutput = fromChild
        try child.run()
        let greeting = await Self.readAvailable(fromChild.fileHandleForReading)
        #expect(String(decoding: greeting, as: UTF8.self) == "held\n")

        let (events, continuation) = AsyncStream.makeStream(of: String.self)
        let store = try FileSessionStore(
            profile: "team", directory: directory.url, keySource: FixedKeySource(key: StorageSamples.key),
            onLockContention: { continuation.yield("waiting") })
        let waiter = Task {
            try await store.withExclusiveAccess { () throws(VersolaError) -> Bool in
                continuation.yield("entered")
                return FileManager.default.fileExists(atPath: marker)
            }
        }
        var iterator = events.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first == "waiting")
        // Let the child finish; only then may the body run.
        try toChild.fileHandleForWriting.write(contentsOf: Data("go\n".utf8))
        let sawMarker = try await waiter.value
        #expect(sawMarker)
        // The child has released the lock, so it has exited or is exiting: the pipe closes.
        _ = await Self.readAvailable(fromChild.fileHandleForReading)
        continuation.finish()
    }

    /// Runs `flock -n <file> true` off the cooperative pool: 0 when the lock was free, 1 when
    /// held elsewhere.
    private static func tryFlock(_ path: String) async -> Int32? {
        await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/flock"), arguments: ["-n", path, "true"])?.status
    }

    /// Reads what is available on `handle` without blocking a cooperative thread (on Linux
    /// `DispatchQueue.global()` runs on those very threads).
    private static func readAvailable(_ handle: FileHandle) async -> Data {
        await DedicatedThread.run { handle.availableData }
    }
}
