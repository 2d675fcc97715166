import Foundation
import Synchronization


/// The running part of a server: the listener, its accept thread and the connection
/// registry. Threads hold this, never the public ``HTTPServer``, so dropping the server
/// can stop it.
final class HTTPServerCore: Sendable {
    private struct ListenerState {
        var descriptor: Int32?
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    let limits: HTTPServerLimits
    let registry: ConnectionRegistry
    private let listener: Mutex<ListenerState>
    private let acceptHook: (@Sendable (HTTPServerPeer) async -> HTTPServerAcceptDecision)?
    private let handler: @Sendable (HTTPServerRequest) async -> HTTPServerAction

    init(
        descriptor: Int32, limits: HTTPServerLimits,
        acceptHook: (@Sendable (HTTPServerPeer) async -> HTTPServerAcceptDecision)?,
        handler: @escaping @Sendable (HTTPServerRequest) async -> HTTPServerAction
    ) {
        self.limits = limits
        self.registry = ConnectionRegistry(
            maxConnections: max(1, limits.maxConnections), dropsOldestWhenFull: limits.dropsOldestWhenFull)
        self.listener = Mutex(ListenerState(descriptor: descriptor))
        self.acceptHook = acceptHook
        self.handler = handler
    }

    /// Starts the accept thread.
    func startAccepting(descriptor: Int32) {
        let thread = Thread { [self] in acceptLoop(descriptor) }
        thread.name = "versola-http-accept"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// Refuses new connections, shuts down the open ones and wakes the accept thread.
    func beginStop() {
        registry.stopAll()
        listener.withLock { state in
            if let descriptor = state.descriptor { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// Returns once the accept thread has closed the listening socket.
    func waitUntilListenerClosed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = listener.withLock { state in
                if !state.finished { state.waiters.append(continuation) }
                return state.finished
            }
            if finished { continuation.resume() }
        }
    }

    private func acceptLoop(_ descriptor: Int32) {
        while !registry.isStopped {
            guard let (connection, peer) = ServerSocket.accept(descriptor) else {
                let code = errno
                if registry.isStopped { break }
                switch code {
                case EINTR, ECONNABORTED, EPROTO:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    usleep(10_000)  // out of descriptors or memory: back off briefly
                    continue
                default:
                    break
                }
                break
            }
            guard let identifier = registry.register(connection) else {
                close(connection)
                continue
            }
            let worker = HTTPConnection(
                descriptor: connection, peer: peer, limits: limits, registry: registry,
                acceptHook: acceptHook, handler: handler)
            let thread = Thread { worker.run(identifier: identifier) }
            thread.name = "versola-http-connection"
            thread.stackSize = 512 * 1024
            thread.start()
        }
        let waiters = listener.withLock { state in
            close(descriptor)
            state.descriptor = nil
            state.finished = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
