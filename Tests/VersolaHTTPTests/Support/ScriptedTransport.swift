import Foundation
import Synchronization

@testable import VersolaHTTP
import VersolaTesting

/// A transport that answers from a script (the last entry repeats) and records every call,
/// for retry-engine tests that need no sockets.
final class ScriptedTransport: HTTPTransport {
    /// One scripted answer.
    enum Step: Sendable {
        case status(Int, headers: HTTPHeaders = HTTPHeaders())
        case failure(TransportError)
    }

    private struct State {
        var script: [Step]
        var calls: [(HTTPRequest, TransportOptions)] = []
    }

    private let state: Mutex<State>
    /// How long each call takes on `clock`, when given (the clock is advanced by it).
    private let clock: ManualClock?
    private let callDuration: Duration

    init(_ script: [Step], clock: ManualClock? = nil, callDuration: Duration = .zero) {
        state = Mutex(State(script: script))
        self.clock = clock
        self.callDuration = callDuration
    }

    /// How many times `send` was called.
    var callCount: Int { state.withLock { $0.calls.count } }
    /// The options of every call.
    var options: [TransportOptions] { state.withLock { $0.calls.map(\.1) } }

    func send(_ request: HTTPRequest, options: TransportOptions) async throws(TransportError) -> HTTPResponse {
        let step = state.withLock { state -> Step in
            state.calls.append((request, options))
            let step = state.script[0]
            if state.script.count > 1 { state.script.removeFirst() }
            return step
        }
        clock?.advance(by: callDuration)
        switch step {
        case .status(let status, let headers):
            guard let origin = request.origin else { throw .invalidRequest(reason: "no origin") }
            return HTTPResponse(status: status, headers: headers, body: [], origin: origin)
        case .failure(let error):
            throw error
        }
    }
}

/// Wraps a transport and counts the calls made through it (for cells the server cannot count,
/// such as a refused connection).
final class CountingTransport: HTTPTransport {
    private let inner: any HTTPTransport
    private let count = Atomic<Int>(0)

    init(_ inner: any HTTPTransport) {
        self.inner = inner
    }

    var callCount: Int { count.load(ordering: .relaxed) }

    func send(_ request: HTTPRequest, options: TransportOptions) async throws(TransportError) -> HTTPResponse {
        count.add(1, ordering: .relaxed)
        return try await inner.send(request, options: options)
    }
}

/// Fixed test values.
enum Fixture {
    static let origin = Origin(scheme: "https", host: "idp.example")!
    static let url = URL(string: "https://idp.example/token")!
}
