import VersolaHTTP
import Foundation
import Synchronization

/// Tells a process when another one changed a profile's stored record (S11).
///
/// Every write of the record advances the profile's generation file
/// (`<state home>/versola/<profile>/generation`); a record spilled elsewhere because the disk
/// refused it (P10) marks it. The watcher follows the profile directory and the spill
/// directory with inotify, so a change is seen within milliseconds, and re-reads the generation at most
/// once a second as well, which keeps it working where inotify is unavailable or misses an
/// event (the directory removed and made again, a network file system). It reports a change
/// only when the generation it reads differs from the last one it reported.
///
/// One thread per watcher, blocked in `poll`; ``stop()`` wakes it through a pipe.
final class ProfileWatcher: Sendable {
    /// How often the generation is re-read without an inotify event.
    static let fallbackInterval: Int32 = 1000

    /// The directories followed: the profile's, and the spill directory (P10), which may not exist yet.
    private let directories: [String]
    /// Reads the current generation.
    private let read: @Sendable () -> UInt64
    private let onChange: @Sendable (UInt64) -> Void
    /// The pipe that wakes the thread to stop: read end, write end.
    private let wake: (read: Int32, write: Int32)
    private let stopped = Mutex(false)

    /// Starts watching; `onChange` is called (on the watcher's thread) with each new generation.
    /// - Parameter initial: the generation the caller already knows.
    init(
        directories: [String], initial: UInt64, read: @escaping @Sendable () -> UInt64,
        onChange: @escaping @Sendable (UInt64) -> Void
    ) {
        self.directories = directories
        self.read = read
        self.onChange = onChange
        wake = CloseOnExec.pipe() ?? (-1, -1)
        let thread = Thread { [self] in self.run(initial: initial) }
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// Stops the thread (it closes its descriptors on the way out).
    func stop() {
        stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            var byte: UInt8 = 1
            if wake.write >= 0 { _ = write(wake.write, &byte, 1) }
        }
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    private func run(initial: UInt64) {
        var last = initial
        let notify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        var watches: [Int32: String] = [:]
        defer {
            if notify >= 0 { close(notify) }
            // Under the lock, so that stop() never writes to a descriptor closed here.
            stopped.withLock { stopped in
                stopped = true
                if wake.read >= 0 { close(wake.read) }
                if wake.write >= 0 { close(wake.write) }
            }
        }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE)
            | UInt32(IN_DELETE_SELF | IN_MOVE_SELF)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !isStopped {
            if notify >= 0 {
                for directory in directories where !watches.values.contains(directory) {
                    let watch = inotify_add_watch(notify, directory, mask)
                    if watch >= 0 { watches[watch] = directory }
                }
            }
            var descriptors = [
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
                pollfd(fd: watches.isEmpty ? -1 : notify, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, Self.fallbackInterval)
            if isStopped { return }
            if ready < 0 && errno != EINTR { return }
            if descriptors[1].revents != 0 {
                // Drain every queued event; a watch that went away (directory removed) is added again.
                while true {
                    let count = buffer.withUnsafeMutableBytes { Glibc.read(notify, $0.baseAddress, $0.count) }
                    if count <= 0 { break }
                    for watch in Self.removedWatches(buffer, count: count) { watches[watch] = nil }
                }
            }
            let current = read()
            if current != last {
                last = current
                onChange(current)
            }
        }
    }

    /// The watches whose events in `buffer` say they ended (`IN_IGNORED`, the directory deleted
    /// or moved), so they have to be added again.
    private static func removedWatches(_ buffer: [UInt8], count: Int) -> [Int32] {
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        var removed: [Int32] = []
        buffer.withUnsafeBytes { raw in
            while offset + header <= count {
                let watch = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let nameLength = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 { removed.append(watch) }
                offset += header + nameLength
            }
        }
        return removed
    }

    /// The generation stored at `path`: 0 when there is none or it does not parse.
    static func readGeneration(_ path: String) -> UInt64 {
        guard case .contents(let bytes)? = try? PrivateFiles.read(path, limit: 64) else { return 0 }
        return UInt64(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}
