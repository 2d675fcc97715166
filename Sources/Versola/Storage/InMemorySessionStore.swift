import Synchronization

/// A ``SessionStore`` that keeps the record in memory only: for tests and for applications
/// that want nothing on disk. Its exclusive access serialises tasks of this process only.
public final class InMemorySessionStore: SessionStore {
    private let record: Mutex<SessionRecord?>
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
    }

    /// Forgets the stored record.
    public func wipe() async throws(VersolaError) {
        record.withLock { $0 = nil }
    }

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
