import VersolaHTTP
import Foundation
import Synchronization

/// Publishes a session's states (S3): the current state and user readable synchronously
/// from any thread (T5), and any number of streams, each starting with the current state.
final class StatePublisher: Sendable {
    private struct Contents {
        var state: SessionState
        var user: SessionUser?
        var problem: String?
        var setAside: [String] = []
        var tokenType: TokenType?
        var lifetime: GrantLifetime?
        var observers: [UUID: AsyncStream<SessionState>.Continuation] = [:]
    }

    private let contents: Mutex<Contents>

    init(state: SessionState) {
        contents = Mutex(Contents(state: state))
    }

    var state: SessionState { contents.withLock { $0.state } }
    var user: SessionUser? { contents.withLock { $0.user } }
    var problem: String? { contents.withLock { $0.problem } }
    var setAside: [String] { contents.withLock { $0.setAside } }

    var tokenType: TokenType? { contents.withLock { $0.tokenType } }
    var lifetime: GrantLifetime? { contents.withLock { $0.lifetime } }

    func setUser(_ user: SessionUser?, tokenType: TokenType? = nil, lifetime: GrantLifetime? = nil) {
        contents.withLock {
            $0.user = user
            $0.tokenType = tokenType
            $0.lifetime = lifetime
        }
    }

    func setProblem(_ problem: String?, setAside: [String]) {
        contents.withLock {
            $0.problem = problem
            $0.setAside = setAside
        }
    }

    /// Records and sends a new state to every observer; the same state twice in a row is
    /// sent once (T6).
    func publish(_ state: SessionState) {
        let observers = contents.withLock { contents -> [AsyncStream<SessionState>.Continuation] in
            guard contents.state != state else { return [] }
            contents.state = state
            return Array(contents.observers.values)
        }
        for observer in observers { observer.yield(state) }
    }

    /// A new stream whose first value is the current state.
    func stream() -> AsyncStream<SessionState> {
        let (stream, continuation) = AsyncStream<SessionState>.makeStream(bufferingPolicy: .unbounded)
        let id = UUID()
        contents.withLock { contents in
            continuation.yield(contents.state)
            contents.observers[id] = continuation
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.contents.withLock { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    deinit {
        for observer in contents.withLock({ Array($0.observers.values) }) { observer.finish() }
    }
}
