import Synchronization
import VersolaHTTP

/// A transport for tests that answers from a script instead of the network, and records every
/// request it is given with the options it came with.
///
/// Steps wait in queues. A URL path (such as `/token`) can have a queue of its own, set with
/// ``script(_:_:)``; a request to a path without one is answered from the shared queue given to
/// ``init(_:clock:callDuration:)``, which by default holds one `404`. A queue hands out its
/// answers in order and then keeps repeating its last one, so a queue of one `503` answers
/// `503` forever.
///
/// When a clock is given, each call moves it forward by `callDuration`, as if the call took
/// that long.
///
/// ```swift
/// // The same answers for every path: two failures, then success.
/// let retried = ScriptedTransport([.status(503), .status(502), .status(200)])
///
/// // Steps per path.
/// let transport = ScriptedTransport()
/// transport.script("/token", .status(503), .json(#"{"access_token":"a","token_type":"Bearer"}"#))
/// // … run the code under test …
/// transport.requests(to: "/token").count
/// transport.form(of: transport.requests(to: "/token")[0])?["grant_type"]
/// ```
public final class ScriptedTransport: HTTPTransport {
    /// One step of a script: what one call gets.
    public enum Step: Sendable {
        /// A response with this status, these header fields and no body.
        case status(Int, headers: HTTPHeaders = HTTPHeaders())
        /// A response with this status, header fields and body.
        case response(status: Int, headers: HTTPHeaders, body: [UInt8])
        /// A transport failure thrown from `send` (a dropped answer is `.failedAfterSending`).
        case failure(TransportError)
        /// A step worked out from the request when it arrives.
        case handler(@Sendable (HTTPRequest) -> Step)

        /// A response with a JSON body and `Content-Type: application/json` added to `headers`.
        public static func json(_ text: String, status: Int = 200, headers: HTTPHeaders = HTTPHeaders()) -> Step {
            var headers = headers
            headers.add("Content-Type", "application/json")
            return .response(status: status, headers: headers, body: Array(text.utf8))
        }
    }

    /// One call to ``send(_:options:)``.
    private struct Call {
        var request: HTTPRequest
        var options: TransportOptions
    }

    private struct State {
        var scripts: [String: [Step]] = [:]
        var shared: [Step]
        var calls: [Call] = []
    }

    private let state: Mutex<State>
    private let clock: ManualClock?
    private let callDuration: Duration

    /// Creates a transport that answers every path from `steps` until a path is given a
    /// script of its own.
    /// - Parameters:
    ///   - steps: the shared queue, at least one step; its last step repeats. By default one
    ///     `404`.
    ///   - clock: moved forward by `callDuration` on each call, when given.
    ///   - callDuration: how long each call takes on `clock`.
    public init(_ steps: [Step] = [.status(404)], clock: ManualClock? = nil, callDuration: Duration = .zero) {
        precondition(!steps.isEmpty, "ScriptedTransport needs at least one shared step")
        state = Mutex(State(shared: steps))
        self.clock = clock
        self.callDuration = callDuration
    }

    /// Appends steps to the queue of `path` (the URL path alone, e.g. `/token`).
    public func script(_ path: String, _ steps: Step...) {
        state.withLock { $0.scripts[path, default: []].append(contentsOf: steps) }
    }

    /// Replaces the queue of `path` with `steps`, dropping any steps still waiting there.
    public func replaceScript(_ path: String, _ steps: Step...) {
        state.withLock { $0.scripts[path] = steps }
    }

    /// Every request, in the order they arrived.
    public var requests: [HTTPRequest] { state.withLock { $0.calls.map(\.request) } }

    /// The requests to one URL path, in the order they arrived.
    public func requests(to path: String) -> [HTTPRequest] {
        state.withLock { $0.calls.map(\.request).filter { $0.url.path == path } }
    }

    /// The options of every call, in the order the calls arrived.
    public var options: [TransportOptions] { state.withLock { $0.calls.map(\.options) } }

    /// How many times ``send(_:options:)`` was called.
    public var callCount: Int { state.withLock { $0.calls.count } }

    /// The form fields of a request's body, or nil when the body is not a form.
    public func form(of request: HTTPRequest) -> FormBody? {
        FormBody(decoding: request.body)
    }

    /// Records the call, moves the clock, and takes the next step for the request's path.
    /// - Throws: the scripted failure, or `.invalidRequest` when the request's URL has no origin.
    public func send(_ request: HTTPRequest, options: TransportOptions) async throws(TransportError) -> HTTPResponse {
        let path = request.url.path
        var step = state.withLock { state -> Step in
            state.calls.append(Call(request: request, options: options))
            if let queue = state.scripts[path], !queue.isEmpty {
                return Self.next(from: &state.scripts[path, default: []])
            }
            return Self.next(from: &state.shared)
        }
        clock?.advance(by: callDuration)
        while case .handler(let compute) = step { step = compute(request) }
        let response: (status: Int, headers: HTTPHeaders, body: [UInt8])
        switch step {
        case .status(let status, let headers):
            response = (status, headers, [])
        case .response(let status, let headers, let body):
            response = (status, headers, body)
        case .failure(let error):
            throw error
        case .handler:
            throw .invalidRequest(reason: "unreachable")
        }
        guard let origin = request.origin else { throw .invalidRequest(reason: "no origin") }
        return HTTPResponse(status: response.status, headers: response.headers, body: response.body, origin: origin)
    }

    /// The first step of a non-empty queue, removed unless it is the last.
    private static func next(from queue: inout [Step]) -> Step {
        let first = queue[0]
        if queue.count > 1 { queue.removeFirst() }
        return first
    }
}
