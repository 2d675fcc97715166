import VersolaHTTP
/// Where a profile's ``SessionRecord`` lives between runs.
///
/// Implementations keep one record per profile and replace it whole (P8).
/// ``withExclusiveAccess(_:)`` serialises critical sections across tasks and, for stores on
/// disk, across processes (T2): a refresh takes it, re-reads the record inside (another
/// process may have rotated the token meanwhile), then spends the token and saves.
///
/// ```swift
/// let refreshed = try await store.withExclusiveAccess { () async throws(VersolaError) -> SessionRecord? in
///     guard var record = try await store.load(), let token = record.refreshToken else { return nil }
///     record.refreshToken = try await rotate(token)   // re-read under the lock, then spend it
///     try await store.save(record)
///     return record
/// }
/// print(refreshed?.subject ?? "nobody is signed in")
/// ```
public protocol SessionStore: Sendable {
    /// The stored record, or nil when the profile holds none.
    /// - Throws: `.recoverable(.unlockRequired)` when the key source is locked (S10);
    ///   `.reauthenticate(.credentialsInvalidated)` when the stored data cannot be decrypted or
    ///   decoded (E9); `.configuration(.invalidConfiguration)` for I/O failures.
    func load() async throws(VersolaError) -> SessionRecord?

    /// Replaces the stored record with `record`, atomically: afterwards either the old or the
    /// new record is stored, never a mix.
    /// - Throws: as ``load()``; nothing is written when it throws.
    func save(_ record: SessionRecord) async throws(VersolaError)

    /// Removes the stored record (logout, the S7 wipe). Works while the key source is locked.
    /// Saves a record holding a refresh token the provider has just rotated (P10), as
    /// ``save(_:)`` does; a store that can keep the record elsewhere when its own storage
    /// refuses it (``FileSessionStore`` spills it to another file system) does so before
    /// throwing, so that the token outlives a process that ends before the write succeeds.
    func saveRenewal(_ record: SessionRecord) async throws(VersolaError)

    func wipe() async throws(VersolaError)

    /// Runs `body` while holding the profile's exclusive lock; other callers of this method on
    /// the same profile wait, in this process and in others. The body re-reads the record
    /// itself. A nested call from inside `body` (same task) runs at once instead of deadlocking.
    nonisolated(nonsending) func withExclusiveAccess<R>(_ body: () async throws(VersolaError) -> R)
        async throws(VersolaError) -> R

    /// The profile's change counter: every ``save(_:)`` and ``wipe()`` advances it (S11), and
    /// it never goes back while the profile exists. A process compares it with the value it
    /// last saw to learn whether the record changed. Stores that cannot tell answer 0.
    func generation() async -> UInt64

    /// A stream that yields the new generation each time the record changes: by any process,
    /// for stores on disk (within milliseconds through inotify, within a second otherwise).
    /// It may also yield for this process's own writes; compare with ``generation()``.
    func changes() -> AsyncStream<UInt64>

    /// Where the record lives, for messages (a path for stores on disk).
    var recordDescription: String { get }

    /// Records that no longer decrypted and were moved aside by a sign-in that replaced them
    /// (P12), for messages: paths for stores on disk; empty for stores that keep none.
    func setAsideRecords() async -> [String]
}

extension SessionStore {
    /// A store that does not count its changes: always 0.
    public func generation() async -> UInt64 { 0 }

    /// A store that does not report changes: a stream that never yields.
    public func changes() -> AsyncStream<UInt64> { AsyncStream { _ in } }

    /// "the session store".
    public var recordDescription: String { "the session store" }

    /// A store that keeps no record aside: none.
    public func setAsideRecords() async -> [String] { [] }

    /// Saves with ``save(_:)``: a store with nowhere else to keep the record.
    public func saveRenewal(_ record: SessionRecord) async throws(VersolaError) { try await save(record) }
}
