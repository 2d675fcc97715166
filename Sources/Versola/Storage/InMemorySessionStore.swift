import VersolaHTTP
import Synchronization

/// A ``SessionStore`` that keeps the record in memory only: for tests and for applications
/// that want nothing on disk. Its exclusive access serialises tasks of this process only.
public final class InMemorySessionStore: SessionStore {
    private let record: Mutex<SessionRecord?>
    private let observers = ChangeObservers()
    private let mutex = AsyncMutex()
    private let lockIdentity = ExclusiveAccessIdentity()

    /// Creates a store holding `record` (none by default).
    public init(record: SessionRecord? = nil) {
        self.record = Mutex(record)
    }

    /// The stored record.
    public func load() async throws(VersolaError) -> SessionRecord? {
        record.withLock { $0 }
    }

    /// Replaces the stored record.
    public func save(_ newRecord: SessionRecord) async throws(VersolaError) {
        record.withLock { $0 = newRecord }
        observers.advance()
    }

    /// Forgets the stored record.
    public func wipe() async throws(VersolaError) {
        record.withLock { $0 = nil }
        observers.advance()
    }

    /// How many times the record was saved or wiped.
    public func generation() async -> UInt64 { observers.generation }

    /// Yields after every save and wipe (of this process: the store lives in memory).
    public func changes() -> AsyncStream<UInt64> { observers.stream() }

    /// Runs `body` while no other task runs a body on this store.
    nonisolated(nonsending) public func withExclusiveAccess<R>(_ body: () async throws(VersolaError) -> R)
        async throws(VersolaError) -> R
    {
        if lockIdentity.isHeldByCurrentTask { return try await body() }
        await mutex.lock()
        defer { mutex.unlock() }
        return try await lockIdentity.whileHeld(body)
    }
}

/// A change counter and the streams waiting for it to move.
final class ChangeObservers: Sendable {
    private struct Contents {
        var generation: UInt64 = 0
        var continuations: [Int: AsyncStream<UInt64>.Continuation] = [:]
        var nextID = 0
    }

    private let contents = Mutex(Contents())

    var generation: UInt64 { contents.withLock { $0.generation } }

    /// Advances the counter and tells every stream.
    func advance() {
        let (value, continuations) = contents.withLock { contents in
            contents.generation += 1
            return (contents.generation, Array(contents.continuations.values))
        }
        for continuation in continuations { continuation.yield(value) }
    }

    func stream() -> AsyncStream<UInt64> {
        let (stream, continuation) = AsyncStream.makeStream(of: UInt64.self, bufferingPolicy: .bufferingNewest(1))
        let id = contents.withLock { contents in
            defer { contents.nextID += 1 }
            contents.continuations[contents.nextID] = continuation
            return contents.nextID
        }
        continuation.onTermination = { [weak self] _ in _ = self?.contents.withLock { $0.continuations.removeValue(forKey: id) } }
        return stream
    }
}
