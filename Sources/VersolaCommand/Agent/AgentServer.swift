import Foundation
import Synchronization
import Versola
import VersolaHTTP

/// The per-user session agent (P4, T2): listens on ``AgentLocation/socketPath``, answers one
/// request line per connection from processes of the same user (checked with `SO_PEERCRED`)
/// through a ``SessionHost``, and exits after `idleTimeout` without any connection.
///
/// One agent per user: it holds an exclusive `flock` on ``AgentLocation/lockPath`` for its
/// whole life. A socket file left by an agent that died (nobody listening) is removed and
/// replaced; a second agent finds the lock taken and exits at once, unless the first is
/// stopping, in which case it waits to take over.
///
/// Stopping (`versola agent --stop`, SIGTERM, SIGINT, or the idle timeout) removes the socket
/// file at once (so no new caller reaches this agent), answers the connections already queued,
/// ends the `watch` streams, and lets the requests being answered finish, for at most
/// ``drainTimeout``, before the agent exits (R9): work a caller delivered is never cut off to
/// be run a second time.
public final class AgentServer: Sendable {
    /// How long a stopping agent waits for the requests in flight.
    public static let drainTimeout: Duration = .seconds(30)

    /// Why the agent did not start.
    public enum StartFailure: Error, Sendable, Hashable {
        /// Another agent holds the lock and serves this user.
        case alreadyRunning
        /// The socket could not be made.
        case cannotListen(String)
    }

    private struct Activity {
        /// Connections accepted and not yet closed, watch streams included. A connection is
        /// counted from its `accept`, before its request is read: a stop waits for a request
        /// still on its way, never only for those already being worked on (R9).
        var connections = 0
        /// Open `watch` streams, by descriptor.
        var watchers: Set<Int32> = []
        /// Connections whose request is still being read, with the order they came in: the
        /// oldest is closed when a new one needs room (``AgentLimits/maximumConnections``).
        var reading: [Int32: UInt64] = [:]
        var arrivals: UInt64 = 0
        /// Connections closed to make room, no longer counted, whose thread is leaving.
        var dropped: Set<Int32> = []
        var lastActivity = ContinuousClock.now
        var stopping = false
    }

    private let location: AgentLocation
    private let idleTimeout: Duration
    private let host: SessionHost
    private let listener: Int32
    private let lock: Int32
    private let activity = Mutex(Activity())

    /// Takes the agent lock and listens.
    ///
    /// A lock held by an agent that is stopping (its socket already gone, the requests it
    /// accepted still being answered) is waited for, up to ``drainTimeout``: the caller that
    /// started this agent found no socket, so this agent is the one that serves next. A lock
    /// held by an agent that still answers on the socket means one is running: `alreadyRunning`.
    /// - Throws: ``StartFailure``.
    public init(location: AgentLocation, idleTimeout: Duration, host: SessionHost) throws(StartFailure) {
        let lock = open(location.lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard lock >= 0 else { throw .cannotListen("cannot open \(location.lockPath)") }
        let deadline = ContinuousClock.now + Self.drainTimeout + .seconds(5)
        while flock(lock, LOCK_EX | LOCK_NB) != 0 {
            if Self.answers(at: location.socketPath) || ContinuousClock.now >= deadline {
                close(lock)
                throw .alreadyRunning
            }
            usleep(20_000)
        }
        // We hold the lock, so no live agent listens here: whatever socket file is left is stale.
        unlink(location.socketPath)
        do {
            listener = try UnixSocket.listen(at: location.socketPath)
        } catch {
            close(lock)
            throw .cannotListen(error.description)
        }
        self.lock = lock
        self.location = location
        self.idleTimeout = idleTimeout
        self.host = host
    }

    /// Whether an agent accepts connections on `path`.
    private static func answers(at path: String) -> Bool {
        guard let connection = try? UnixSocket.connect(to: path) else { return false }
        close(connection)
        return true
    }

    deinit {
        close(listener)
        close(lock)
    }

    /// Serves until idle or stopped; then drains and removes the socket (the lock is released
    /// when the server goes away).
    public func run() {
        StopSignals.install()
        while true {
            let waitMilliseconds = activity.withLock { state -> Int32? in
                if state.stopping || StopSignals.received { return nil }
                if state.connections > 0 { return 1000 }
                let left = state.lastActivity + idleTimeout - ContinuousClock.now
                if left <= .zero { return nil }
                return Int32(min(1000, max(1, ErrorReport.milliseconds(left))))
            }
            guard let waitMilliseconds else { break }
            var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, waitMilliseconds)
            if ready < 0, errno != EINTR { break }
            guard ready > 0 else { continue }
            if descriptor.revents & Int16(POLLIN) == 0 { break }
            let connection = CloseOnExec.accept(listener)
            guard connection >= 0 else { continue }
            start(connection)
        }
        // Stop accepting first: a caller that cannot connect starts the next agent (which waits
        // for this one's lock) or runs the command itself. Connections already queued on the
        // listener carry requests their callers sent: they are answered, never dropped.
        unlink(location.socketPath)
        acceptQueued()
        drain()
    }

    /// Serves the connections waiting in the listener's queue once the socket file is gone (no
    /// new one can arrive).
    private func acceptQueued() {
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
        while true {
            let connection = CloseOnExec.accept(listener)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            start(connection)
        }
    }

    /// Answers `connection` on a thread of its own, from a process of this user only, within
    /// ``AgentLimits``.
    private func start(_ connection: Int32) {
        _ = fcntl(connection, F_SETFL, fcntl(connection, F_GETFL) & ~O_NONBLOCK)
        guard UnixSocket.peerUID(connection) == getuid() else {
            close(connection)
            return
        }
        UnixSocket.limitWrites(connection, to: AgentLimits.writeTimeout)
        guard admit(connection) else {
            UnixSocket.write(AgentReply.failure(Self.busy).line, to: connection)
            close(connection)
            return
        }
        let thread = Thread { [self] in
            self.serve(connection)
            // Counted out before the descriptor is closed, so a new connection given the same
            // number is never mistaken for this one.
            self.activity.withLock {
                if $0.dropped.remove(connection) == nil { $0.connections -= 1 }
                $0.reading[connection] = nil
                $0.lastActivity = .now
            }
            close(connection)
        }
        thread.stackSize = 512 * 1024
        thread.start()
    }

    /// Counts `connection` in; when ``AgentLimits/maximumConnections`` are open, the oldest
    /// still sending its request is closed for it. False when none can make room.
    private func admit(_ connection: Int32) -> Bool {
        let (admitted, dropped) = activity.withLock { state -> (Bool, Int32?) in
            var dropped: Int32?
            if state.connections >= AgentLimits.maximumConnections {
                guard let oldest = state.reading.min(by: { $0.value < $1.value })?.key else { return (false, nil) }
                state.reading[oldest] = nil
                state.dropped.insert(oldest)
                state.connections -= 1
                dropped = oldest
            }
            state.connections += 1
            state.arrivals += 1
            state.reading[connection] = state.arrivals
            state.lastActivity = .now
            return (true, dropped)
        }
        // Its thread reads the end of stream, closes it and leaves.
        if let dropped { shutdown(dropped, Int32(SHUT_RDWR)) }
        return admitted
    }

    /// Told to a caller when every connection is being answered.
    static let busy = VersolaError.recoverable(
        .network(
            NetworkFailure(
                kind: .couldNotConnect, requestBytesWritten: false,
                origin: "the versola agent (\(AgentLimits.maximumConnections) connections busy; try again)")))

    /// Ends the watch streams and waits (bounded) until every accepted connection is answered
    /// and closed, those whose request has not been read yet included.
    private func drain() {
        let watchers = activity.withLock { state -> Set<Int32> in
            state.stopping = true
            return state.watchers
        }
        for watcher in watchers { shutdown(watcher, Int32(SHUT_RDWR)) }
        let deadline = ContinuousClock.now + Self.drainTimeout
        while activity.withLock({ $0.connections > 0 }) && ContinuousClock.now < deadline {
            usleep(10_000)
        }
    }

    /// Lists `connection` as a watch stream while `body` runs, so that a stop can end it; false
    /// (and `body` not run) when the agent is already stopping.
    private func watching(_ connection: Int32, _ body: () -> Void) -> Bool {
        let admitted = activity.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.watchers.insert(connection)
            return true
        }
        guard admitted else { return false }
        body()
        activity.withLock { _ = $0.watchers.remove(connection) }
        return true
    }

    /// Answers the one request of `connection` (or streams states for `watch`).
    private func serve(_ connection: Int32) {
        var pending: [UInt8] = []
        let line = UnixSocket.readLine(
            from: connection, pending: &pending, limit: AgentLimits.maximumRequestBytes,
            deadline: .now + AgentLimits.requestDeadline)
        let dropped = activity.withLock { state -> Bool in
            state.reading[connection] = nil
            return state.dropped.contains(connection)
        }
        guard let line, !dropped else { return }
        let request: AgentRequest
        switch AgentRequest.parse(line) {
        case .success(let parsed): request = parsed
        case .failure(let refusal):
            UnixSocket.write(AgentReply.failure(AgentRequest.error(for: refusal)).line, to: connection)
            return
        }
        switch request.operation {
        case .stop:
            // The socket goes before the answer: once `versola agent --stop` returns, no caller
            // reaches this agent any more (the main loop still answers what is queued).
            activity.withLock { $0.stopping = true }
            unlink(location.socketPath)
            UnixSocket.write(AgentReply.ok(AgentAcknowledgement.stopping).line, to: connection)
        case .watch:
            // A watch that reaches a stopping agent ends at once; the watcher starts the next agent.
            _ = watching(connection) { streamStates(of: request, to: connection) }
        default:
            // A warm token is answered on this thread; the rest waits for the host's task.
            let reply = host.answerWarm(request) ?? SyncBridge.wait { [host] in await host.handle(request) }
            UnixSocket.write(reply.line, to: connection)
        }
    }

    /// Writes each state change as a reply line until the client hangs up or the agent stops.
    private func streamStates(of request: AgentRequest, to connection: Int32) {
        let host = self.host
        let streaming = Task {
            let stream: AsyncStream<SessionState>
            do throws(VersolaError) {
                stream = try await host.watch(request)
            } catch {
                UnixSocket.write(AgentReply.failure(error).line, to: connection)
                shutdown(connection, Int32(SHUT_RDWR))
                return
            }
            for await state in stream {
                let status = await host.status(of: request, reporting: state)
                if !UnixSocket.write(AgentReply.ok(status).line, to: connection) { break }
            }
        }
        // The client sends nothing more: a read returning means it hung up (or the agent stops).
        var byte: UInt8 = 0
        while recv(connection, &byte, 1, 0) > 0 {}
        streaming.cancel()
    }
}

/// SIGTERM and SIGINT ask the agent to stop the way `versola agent --stop` does.
enum StopSignals {
    private static let flag = Atomic<Bool>(false)

    static var received: Bool { flag.load(ordering: .relaxed) }

    static func install() {
        for signalNumber in [SIGTERM, SIGINT] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in StopSignals.flag.store(true, ordering: .relaxed) }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0  // no SA_RESTART: poll returns EINTR and the loop sees the flag
            sigaction(signalNumber, &action, nil)
        }
    }
}
