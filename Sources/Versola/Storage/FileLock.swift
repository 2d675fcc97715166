import Foundation
import VersolaHTTP

/// An exclusive `flock` on a lock file, held from ``acquire(path:directory:onContention:)``
/// until ``release()`` (or deinit). The owner of one open file descriptor.
///
/// `flock` locks belong to the open file description, so two descriptors (in two processes,
/// or two in one process) exclude each other.
final class FileLock: @unchecked Sendable {
    // The descriptor is written once in init and closed once; nothing else mutates it.
    private let descriptor: Int32
    private let path: String
    private var released = false

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        if !released { close(descriptor) }
    }

    /// Opens (creating with mode 0600) and locks `path`. When another holder has it,
    /// `onContention` is called once and the wait happens on a thread of its own
    /// (``DedicatedThread``), never one that Swift tasks need.
    static func acquire(path: String, onContention: @Sendable () -> Void = {}) async throws(FileSystemFailure)
        -> FileLock
    {
        let lock = try opened(path)
        if try lock.tryLock() { return lock }
        onContention()
        let descriptor = lock.descriptor
        let code: Int32 = await DedicatedThread.run { flockRetrying(descriptor, LOCK_EX) == 0 ? 0 : errno }
        guard code == 0 else { throw FileSystemFailure("lock", path, code: code) }
        return lock
    }

    /// Opens (creating with mode 0600) and locks `path` when no other holder has it; nil when
    /// one has (its lock is left alone).
    static func attempt(path: String) throws(FileSystemFailure) -> FileLock? {
        let lock = try opened(path)
        return try lock.tryLock() ? lock : nil
    }

    /// `path` opened (created with mode 0600, whatever the umask), not yet locked.
    private static func opened(_ path: String) throws(FileSystemFailure) -> FileLock {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, PrivateFiles.fileMode)
        guard descriptor >= 0 else { throw FileSystemFailure("open lock file", path) }
        let lock = FileLock(descriptor: descriptor, path: path)
        guard fchmod(descriptor, PrivateFiles.fileMode) == 0 else { throw FileSystemFailure("chmod 600", path) }
        return lock
    }

    /// Takes the lock when no other holder has it: true; false when one has.
    private func tryLock() throws(FileSystemFailure) -> Bool {
        if Self.flockRetrying(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
        guard errno == EWOULDBLOCK else { throw FileSystemFailure("lock", path) }
        return false
    }

    /// Replaces the lock file's contents with `text` (what a waiter reads about the holder).
    func note(_ text: String) {
        guard !released, ftruncate(descriptor, 0) == 0 else { return }
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    /// Unlocks and closes.
    func release() {
        guard !released else { return }
        released = true
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    private static func flockRetrying(_ descriptor: Int32, _ operation: Int32) -> Int32 {
        while true {
            let status = flock(descriptor, operation)
            if status == 0 || errno != EINTR { return status }
        }
    }
}
