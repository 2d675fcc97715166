import Foundation
import Versola
import VersolaHTTP

@testable import VersolaCommand

/// A stand-in for the session agent on the real socket path: answers every request line
/// with the reply it is given (or closes without one), and records each request it read.
/// Lets a test give the front and the engine the very same answer.
final class FakeAgent: @unchecked Sendable {
    /// What to answer: the reply line's bytes (newline added), or nil to close unanswered.
    var reply: [UInt8]? {
        get { lock.withLock { storedReply } }
        set { lock.withLock { storedReply = newValue } }
    }
    /// The request lines received so far.
    var requests: [String] { lock.withLock { received } }

    private let lock = NSLock()
    private var storedReply: [UInt8]?
    private var received: [String] = []
    private let listener: Int32
    private let socketPath: String

    /// Listens where the agent of `environment` would (AgentLocation).
    init(environment: [String: String]) throws {
        guard let location = AgentLocation.resolve(environment: environment) else { throw CocoaError(.fileNoSuchFile) }
        socketPath = location.socketPath
        unlink(socketPath)
        listener = try UnixSocket.listen(at: socketPath)
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// Forgets the recorded requests.
    func reset() { lock.withLock { received = [] } }

    /// Stops listening (the serving thread ends at its next accept).
    func stop() {
        unlink(socketPath)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve() {
        while true {
            let connection = CloseOnExec.accept(listener)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            var pending: [UInt8] = []
            if let line = UnixSocket.readLine(from: connection, pending: &pending) {
                lock.withLock { received.append(String(decoding: line, as: UTF8.self)) }
                if let reply { UnixSocket.write(reply + [UInt8(ascii: "\n")], to: connection) }
            }
            close(connection)
        }
    }
}
