import Foundation
import VersolaHTTP

/// S15: one sign-in per profile at a time, across processes. The process that runs a sign-in
/// (browser, pasted redirect or device code) holds an exclusive `flock` on
/// `<state home>/versola/<profile>/signin.lock` for the whole of it, its pid written in the file
/// for waiters to name. This is not the record's lock (``FileSessionStore``), which refreshes and
/// reads take briefly; a sign-in holds this one for minutes.
///
/// Another process that needs a sign-in for the profile waits for the holder, bounded by its own
/// limit, then reads the store again: the holder's session (or one a `versola login` run by hand
/// left) serves it. A killed holder's lock is released by the kernel at once.
///
/// ```swift
/// guard let lock = try await SignInLock.acquire(profile: "work", stateHome: directories.stateHome,
///     within: .seconds(600), waiting: { owner in print("waiting for pid \(owner ?? 0)") })
/// else { return }  // still held after 600 s
/// defer { lock.release() }
/// ```
package final class SignInLock: Sendable {
    private let lock: FileLock
    /// Whether another process held the lock first: its sign-in may have left a session.
    package let waited: Bool
    /// Whether the profile had a stored record once the lock was taken: a sign-in that ended
    /// just before this one asked for the lock left one.
    package let foundRecord: Bool
    private init(lock: FileLock, waited: Bool, foundRecord: Bool) {
        self.lock = lock
        self.waited = waited
        self.foundRecord = foundRecord
    }

    /// The profile's record generation now, as ``SessionStore/generation()`` counts it: every
    /// save and wipe advances it, so a caller that reads it before a request and again once it
    /// holds the lock learns whether a sign-in (or any write) ended in between. 0 when the
    /// profile has none yet or its name is not one.
    package static func recordGeneration(profile: String, stateHome: URL) -> UInt64 {
        guard let directory = try? ProfileDirectory(profile: profile, stateHome: stateHome) else { return 0 }
        return ProfileWatcher.readGeneration(directory.generationPath)
    }

    /// How often a waiter tries the lock again: a killed holder is taken over this soon.
    static let pollInterval: Duration = .milliseconds(25)

    /// Takes the profile's sign-in lock, waiting while another process holds it.
    /// - Parameters:
    ///   - within: how long to wait for another holder before giving up.
    ///   - waiting: called once when another process holds the lock, with its pid when known.
    /// - Returns: the lock, or nil when it was still held after `within` or the task was cancelled.
    /// - Throws: `recoverable(.storageUnavailable)` when the lock file cannot be opened.
    package static func acquire(
        profile: String, stateHome: URL, within limit: Duration, waiting: @Sendable (_ owner: Int32?) -> Void
    ) async throws(VersolaError) -> SignInLock? {
        let directory = try ProfileDirectory(profile: profile, stateHome: stateHome)
        let path = directory.signInLockPath
        let deadline = ContinuousClock.now + limit
        var attempts = 0
        var announced = false
        do throws(FileSystemFailure) {
            try directory.ensure()
            while true {
                if let held = try FileLock.attempt(path: path) {
                    held.note("\(getpid())\n")
                    let foundRecord = FileManager.default.fileExists(atPath: directory.recordPath)
                    return SignInLock(lock: held, waited: attempts > 0, foundRecord: foundRecord)
                }
                attempts += 1
                // The holder writes its pid just after taking the lock: a few tries to name it.
                if !announced {
                    let owner = owner(at: path)
                    if owner != nil || attempts >= 8 {
                        announced = true
                        waiting(owner)
                    }
                }
                guard ContinuousClock.now < deadline, !Task.isCancelled else { return nil }
                try? await Task.sleep(for: pollInterval)
            }
        } catch {
            throw error.storageError
        }
    }

    /// The pid the holder of the lock at `path` wrote, if it did.
    static func owner(at path: String) -> Int32? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return Int32(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Ends the sign-in's hold (also when the process ends, by the kernel).
    package func release() {
        // The next holder writes its own pid; until then no waiter names this process.
        lock.note("")
        lock.release()
    }
}
