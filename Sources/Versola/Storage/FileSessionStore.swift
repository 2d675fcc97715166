import VersolaHTTP
import Foundation
import Synchronization
import VersolaCrypto

/// The ``SessionStore`` on disk: one AES-256-GCM sealed record per profile at
/// `<state home>/versola/<profile>/session` (P5, P8, L3).
///
/// - Files are 0600 and directories 0700, set explicitly whatever the umask.
/// - The record is replaced atomically: temp file in the same directory, write, `fsync`,
///   `rename`, `fsync` of the directory. A stray temp file left by a crash is ignored.
/// - The seal's associated data binds the profile name and the format version, so a record
///   copied into another profile does not open there.
/// - ``withExclusiveAccess(_:)`` holds a `flock` on `<profile>/lock` (other processes wait)
///   and an in-process queue (other tasks of this process wait, without blocking threads).
///
/// Failures:
/// - a locked key source → `.recoverable(.unlockRequired)` (S10), nothing read or written;
/// - a record that does not decrypt or decode (tampering, a lost key, a truncated, empty,
///   garbage or oversized file — more than ``maximumRecordSize``) →
///   `.reauthenticate(.credentialsInvalidated)` (E9). The file is left where it is: ``load()``
///   never deletes it. The next ``save(_:)`` or ``wipe()`` that finds it still unreadable
///   moves it aside to `session.invalid-<unix time>-<random>` instead of overwriting it, so
///   nothing is lost silently;
/// - any other I/O failure (`EACCES`, `ENOSPC`, `EROFS`, a symbolic link or FIFO in place of
///   the file) → `.recoverable(.storageUnavailable(…))` naming the call and the path: the person
///   or an administrator has to fix the file system, and the session is kept meanwhile (P10).
///   A record that could not be written is also spilled, sealed, to another file system
///   (`$XDG_RUNTIME_DIR/versola/spill`): the next reader of the profile takes it up while nothing else has been
///   written since, so a process that ends before the disk has room loses no rotated token.
///
/// ```swift
/// let directories = try XDGDirectories.current()
/// let store = try FileSessionStore(
///     profile: "work", directory: directories.stateHome,
///     keySource: KeyFileKeySource(directories: directories))
/// let record = try await store.load()
/// print(record?.subject ?? "nobody is signed in")
/// ```
public final class FileSessionStore: SessionStore {
    /// The largest record file read (1 MiB); a larger one is treated as unreadable.
    public static let maximumRecordSize = 1 << 20

    /// The profile's name.
    public var profile: String { directory.profile }
    /// The profile's directory, `<state home>/versola/<profile>`.
    public var profileDirectory: URL { URL(fileURLWithPath: directory.path, isDirectory: true) }
    /// The sealed record file.
    public var recordFile: URL { URL(fileURLWithPath: directory.recordPath) }
    /// The source of the data key.
    public let keySource: any KeySource
    /// The record file's path.
    public var recordDescription: String { directory.recordPath }

    let directory: ProfileDirectory
    private let mutex: AsyncMutex
    private let lockIdentity: ExclusiveAccessIdentity
    /// Called when the `flock` is held by someone else and this store starts waiting (tests).
    let onLockContention: @Sendable () -> Void
    /// Where a record the profile's file system refused goes (P10); nil when there is nowhere.
    let spill: SpillFile?
    /// Told when this process takes up a spilled record under the profile lock (P10).
    private let spillTakenUp = Mutex<(@Sendable (SpillTakeUp) -> Void)?>(nil)

    /// The bytes every record file starts with.
    static let magic: [UInt8] = Array("VSR1".utf8)

    /// Creates the store for `profile` under the XDG state directory `directory`. Nothing is
    /// touched on disk until the first call.
    /// - Parameters:
    ///   - profile: 1 to 64 characters from `[A-Za-z0-9._-]`, not containing `..`.
    ///   - directory: the XDG state home (``XDGDirectories/stateHome``).
    ///   - keySource: where the data key comes from (``KeyFileKeySource`` by default in
    ///     ``SessionStorage``).
    /// - Throws: `.configuration(.invalidConfiguration)` for an invalid profile name.
    public convenience init(profile: String, directory: URL, keySource: any KeySource) throws(VersolaError) {
        try self.init(profile: profile, directory: directory, keySource: keySource, onLockContention: {})
    }

    init(
        profile: String, directory: URL, keySource: any KeySource, onLockContention: @escaping @Sendable () -> Void,
        spillDirectory: String? = nil
    ) throws(VersolaError) {
        self.directory = try ProfileDirectory(profile: profile, stateHome: directory)
        self.keySource = keySource
        self.onLockContention = onLockContention
        self.spill = SpillFile(recordPath: self.directory.recordPath, directory: spillDirectory)
        (mutex, lockIdentity) = LockRegistry.shared.locks(for: self.directory.lockPath)
    }

    /// The stored record, or nil when there is none. The key source is asked only when a
    /// record exists. A record spilled after a failed write (P10) is the newest while the
    /// profile's generation is the one it follows; a caller holding the profile lock writes it
    /// through. See the type's documentation for the failures.
    public func load() async throws(VersolaError) -> SessionRecord? {
        if let spilled = await takeSpill() { return spilled }
        guard let sealed = try readRecordFile() else { return nil }
        let key = try await keySource.dataKey()
        return try open(sealed, key: key)
    }

    /// Seals `record` and replaces the stored one atomically. An existing record that does
    /// not open with the current key is moved aside first (see the type's documentation).
    public func save(_ record: SessionRecord) async throws(VersolaError) {
        try await write(record, spilling: false)
    }

    /// ``save(_:)`` for a record holding a just-rotated refresh token (P10): when the file
    /// system refuses the write, the sealed record is spilled (`$XDG_RUNTIME_DIR/versola/spill`) before the
    /// failure is thrown, and readers of the profile take it up from there.
    public func saveRenewal(_ record: SessionRecord) async throws(VersolaError) {
        try await write(record, spilling: true)
    }

    private func write(_ record: SessionRecord, spilling: Bool) async throws(VersolaError) {
        let key = try await keySource.dataKey()
        let sealed = try seal(record, key: key)
        let generation = ProfileWatcher.readGeneration(directory.generationPath)
        do {
            try directory.ensure()
            try setAsideUnreadableRecord(key: key)
            try writeSealed(sealed)
        } catch {
            if spilling { try? spill?.write(sealed: sealed, following: generation) }
            throw error.storageError
        }
    }

    /// Writes a sealed record over the record file and moves the generation on; the spill it
    /// supersedes is removed.
    private func writeSealed(_ sealed: [UInt8]) throws(FileSystemFailure) {
        try PrivateFiles.writeAtomically(sealed, to: directory.recordPath, in: directory.path)
        try advanceGeneration()
        spill?.remove()
    }

    /// The spilled record while it follows the current generation (a stale or unreadable one
    /// is removed), written through when this task holds the profile lock.
    private func takeSpill() async -> SessionRecord? {
        guard let spill, let (generation, sealed) = spill.read(), let key = try? await keySource.dataKey() else { return nil }
        guard generation == ProfileWatcher.readGeneration(directory.generationPath), let record = try? open(sealed, key: key) else {
            // Another write came after it, or it no longer opens: the record file is the truth.
            spill.remove()
            return nil
        }
        if lockIdentity.isHeldByCurrentTask {
            let written = (try? writeSealed(sealed)) != nil
            spillTakenUp.withLock { $0 }?(SpillTakeUp(spillPath: spill.path, recordPath: directory.recordPath, written: written))
        }
        return record
    }

    /// Calls `notice` each time this process takes up a record another process spilled (P10)
    /// and writes it through, or tries to (the command says so on standard error).
    package func onSpillTakenUp(_ notice: @escaping @Sendable (SpillTakeUp) -> Void) {
        spillTakenUp.withLock { $0 = notice }
    }

    /// `record` sealed exactly as the record file holds it (same key, same binding to this
    /// profile), for a process that outlives this one to hold when the disk refuses it (P10).
    package func seal(_ record: SessionRecord) async throws(VersolaError) -> [UInt8] {
        try seal(record, key: try await keySource.dataKey())
    }

    /// Opens a record sealed by ``seal(_:)`` for this profile.
    /// - Throws: `.reauthenticate(.credentialsInvalidated)` when it does not open here.
    package func open(sealed: [UInt8]) async throws(VersolaError) -> SessionRecord {
        try open(sealed, key: try await keySource.dataKey())
    }

    private func seal(_ record: SessionRecord, key: SymmetricKey) throws(VersolaError) -> [UInt8] {
        do {
            return Self.magic + (try AESGCM.seal(record.serialized(), key: key, authenticating: associatedData))
        } catch {
            throw .configuration(.invalidConfiguration("cannot seal the session record"))
        }
    }

    /// Deletes the stored record and any temp files left by interrupted writes, then lets the
    /// key source forget a key of this profile alone (``KeySource/discardKey()``: the Secret
    /// Service item). Needs no key; when the key is available and the record does not open with
    /// it, the record is moved aside instead of deleted.
    public func wipe() async throws(VersolaError) {
        if let key = try? await keySource.dataKey() {
            do {
                try setAsideUnreadableRecord(key: key)
            } catch {
                throw error.storageError
            }
        }
        do {
            for name in PrivateFiles.names(in: directory.path) where name.hasPrefix("session.tmp-") {
                try PrivateFiles.remove(directory.path + "/" + name)
            }
            try PrivateFiles.remove(directory.recordPath)
            spill?.remove()
            if FileManager.default.fileExists(atPath: directory.path) {
                try PrivateFiles.syncDirectory(directory.path)
                try advanceGeneration()
            }
        } catch {
            throw error.storageError
        }
        await keySource.discardKey()
    }

    /// The records moved aside because they no longer opened (`session.invalid-…`, user-only),
    /// oldest first (P12).
    public func setAsideRecords() async -> [String] {
        PrivateFiles.names(in: directory.path).filter { $0.hasPrefix("session.invalid-") }.sorted()
            .map { directory.path + "/" + $0 }
    }

    /// The profile's change counter (see ``SessionStore/generation()``): the number in
    /// `<profile>/generation`, 0 when there is none.
    public func generation() async -> UInt64 {
        currentGeneration()
    }

    /// The generation on disk, marked (its top bit flipped) while a spilled record follows it
    /// (P10), so that a spill made by another process is a change every watcher sees.
    private func currentGeneration() -> UInt64 {
        let written = ProfileWatcher.readGeneration(directory.generationPath)
        guard let spilled = spill?.read()?.generation, spilled == written else { return written }
        return written ^ (1 << 63)
    }

    /// Yields each new generation written by any process (inotify on the profile directory and
    /// the spill directory, and a re-read at most every second). Ends watching when the stream
    /// is dropped.
    public func changes() -> AsyncStream<UInt64> {
        try? directory.ensure()
        let (stream, continuation) = AsyncStream.makeStream(of: UInt64.self, bufferingPolicy: .bufferingNewest(1))
        let watcher = ProfileWatcher(
            directories: [directory.path] + (spill.map { [$0.directory] } ?? []), initial: currentGeneration(),
            read: { [weak self] in self?.currentGeneration() ?? 0 }
        ) { generation in continuation.yield(generation) }
        continuation.onTermination = { _ in watcher.stop() }
        return stream
    }

    /// Writes the next generation, after the record it counts (callers hold the lock).
    private func advanceGeneration() throws(FileSystemFailure) {
        let next = ProfileWatcher.readGeneration(directory.generationPath) &+ 1
        try PrivateFiles.writeAtomically(Array("\(next)\n".utf8), to: directory.generationPath, in: directory.path)
    }

    /// Runs `body` holding the profile's lock, against other tasks of this process (all
    /// stores of one profile share a queue) and other processes (`flock`). Re-read the
    /// record inside `body`. A nested call from the same task runs `body` at once.
    nonisolated(nonsending) public func withExclusiveAccess<R>(_ body: () async throws(VersolaError) -> R)
        async throws(VersolaError) -> R
    {
        if lockIdentity.isHeldByCurrentTask { return try await body() }
        await mutex.lock()
        defer { mutex.unlock() }
        let fileLock: FileLock
        do {
            try directory.ensure()
            fileLock = try await FileLock.acquire(path: directory.lockPath, onContention: onLockContention)
        } catch {
            throw error.storageError
        }
        defer { fileLock.release() }
        return try await lockIdentity.whileHeld(body)
    }

    // MARK: - Sealing

    /// Binds a sealed record to this profile and this format version.
    private var associatedData: [UInt8] {
        Array("versola session record v\(SessionRecord.formatVersion) profile \(profile)".utf8)
    }

    /// The record file's bytes, nil when there is none.
    private func readRecordFile() throws(VersolaError) -> [UInt8]? {
        let result: PrivateFiles.ReadResult
        do {
            result = try PrivateFiles.read(directory.recordPath, limit: Self.maximumRecordSize)
        } catch {
            throw error.storageError
        }
        switch result {
        case .missing: return nil
        case .tooLarge: throw .reauthenticate(.credentialsInvalidated)
        case .contents(let bytes): return bytes
        }
    }

    private func open(_ file: [UInt8], key: SymmetricKey) throws(VersolaError) -> SessionRecord {
        guard file.count > Self.magic.count, Array(file[0..<Self.magic.count]) == Self.magic,
            let plaintext = try? AESGCM.open(Array(file[Self.magic.count...]), key: key, authenticating: associatedData)
        else {
            throw .reauthenticate(.credentialsInvalidated)
        }
        return try SessionRecord(serialized: plaintext)
    }

    /// Moves the current record file aside when it exists and does not open with `key`.
    private func setAsideUnreadableRecord(key: SymmetricKey) throws(FileSystemFailure) {
        let current = try PrivateFiles.read(directory.recordPath, limit: Self.maximumRecordSize)
        switch current {
        case .missing:
            return
        case .contents(let bytes):
            if (try? open(bytes, key: key)) != nil { return }
        case .tooLarge:
            break
        }
        let suffix = SecureRandom.bytes(3).map { String(format: "%02x", $0) }.joined()
        let seconds = Int(Date().timeIntervalSince1970)
        try PrivateFiles.move(directory.recordPath, to: "\(directory.recordPath).invalid-\(seconds)-\(suffix)")
    }
}

/// One in-process queue (and nesting identity) per lock file, shared by every store of a
/// profile in this process, so that tasks queue without each blocking a thread on `flock`.
private final class LockRegistry: Sendable {
    static let shared = LockRegistry()

    private let entries = Mutex<[String: (AsyncMutex, ExclusiveAccessIdentity)]>([:])

    func locks(for path: String) -> (AsyncMutex, ExclusiveAccessIdentity) {
        entries.withLock { entries in
            if let existing = entries[path] { return existing }
            let created = (AsyncMutex(), ExclusiveAccessIdentity())
            entries[path] = created
            return created
        }
    }
}
