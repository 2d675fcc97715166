import Glibc
import Synchronization

/// The open connections of one server, so that `stop()` can end them. A descriptor is
/// shut down only while registered, and a connection thread unregisters before it closes,
/// so a descriptor number reused elsewhere is never touched.
final class ConnectionRegistry: Sendable {
    private struct State {
        var stopped = false
        var nextIdentifier = 0
        var open: [Int: Int32] = [:]
    }

    private let state = Mutex(State())
    private let maxConnections: Int
    private let dropsOldestWhenFull: Bool

    init(maxConnections: Int, dropsOldestWhenFull: Bool = false) {
        self.maxConnections = maxConnections
        self.dropsOldestWhenFull = dropsOldestWhenFull
    }

    /// Registers a connection; nil when the server is stopping, or full and not dropping the
    /// oldest. A dropped connection is shut down while still registered (its thread then sees
    /// the end of the stream and closes), and forgotten.
    func register(_ descriptor: Int32) -> Int? {
        state.withLock { state in
            guard !state.stopped else { return nil }
            if state.open.count >= maxConnections {
                guard dropsOldestWhenFull, let oldest = state.open.keys.min(),
                    let dropped = state.open.removeValue(forKey: oldest)
                else { return nil }
                _ = shutdown(dropped, Int32(SHUT_RDWR))
            }
            let identifier = state.nextIdentifier
            state.nextIdentifier += 1
            state.open[identifier] = descriptor
            return identifier
        }
    }

    /// Forgets a connection; call before closing its descriptor.
    func unregister(_ identifier: Int) {
        state.withLock { _ = $0.open.removeValue(forKey: identifier) }
    }

    /// Whether `stopAll` was called.
    var isStopped: Bool {
        state.withLock { $0.stopped }
    }

    /// The number of registered connections.
    var openCount: Int {
        state.withLock { $0.open.count }
    }

    /// Refuses new connections and shuts down every open one (their threads then see the
    /// end of the stream or a failed write, and close). Returns false if already stopped.
    @discardableResult
    func stopAll() -> Bool {
        state.withLock { state in
            guard !state.stopped else { return false }
            state.stopped = true
            for descriptor in state.open.values { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
            return true
        }
    }
}
