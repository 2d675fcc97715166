import Foundation
import Synchronization
import Versola
import VersolaTesting
import VersolaHTTP

/// A transport for engine tests: answers each request from a script kept per URL path, and
/// records every request it was given.
///
/// Each path has a queue of answers; the last answer of a queue repeats, so a path scripted
/// with one `503` answers `503` forever. A path with no script answers ``fallback`` (a 404).
/// A clock, when given, is advanced by `callDuration` on every call.
///
/// ```swift
/// let transport = ScriptedTransport()
/// transport.script("/token", .status(503), .json(#"{"access_token":"a","token_type":"Bearer"}"#))
/// // … run the engine …
/// transport.requests(to: "/token").count
/// transport.form(of: transport.requests(to: "/token")[0])?["grant_type"]
/// ```
final class ScriptedTransport: HTTPTransport {
    /// One scripted answer.
    enum Answer: Sendable {
        /// A response with this status, header fields and body.
        case response(status: Int, headers: HTTPHeaders, body: [UInt8])
        /// A transport failure (a dropped answer is `.failedAfterSending`).
        case failure(TransportError)
        /// An answer computed from the request.
        case handler(@Sendable (HTTPRequest) -> Answer)

        /// A JSON body with `Content-Type: application/json`.
        static func json(_ text: String, status: Int = 200, headers: HTTPHeaders = HTTPHeaders()) -> Answer {
            var headers = headers
            headers.add("Content-Type", "application/json")
            return .response(status: status, headers: headers, body: Array(text.utf8))
        }

        /// A status with no body.
        static func status(_ status: Int, headers: HTTPHeaders = HTTPHeaders()) -> Answer {
            .response(status: status, headers: headers, body: [])
        }
    }

    private struct State {
        var scripts: [String: [Answer]] = [:]
        var requests: [HTTPRequest] = []
        var fallback: Answer = .status(404)
    }

    private let state = Mutex(State())
    private let clock: ManualClock?
    private let callDuration: Duration

    /// Creates a transport with no scripts.
    /// - Parameters:
    ///   - clock: advanced by `callDuration` on each call, when given.
    ///   - callDuration: how long each call takes on `clock`.
    init(clock: ManualClock? = nil, callDuration: Duration = .zero) {
        self.clock = clock
        self.callDuration = callDuration
    }

    /// Appends answers to the queue of `path` (the URL path, e.g. `/token`).
    func script(_ path: String, _ answers: Answer...) {
        state.withLock { $0.scripts[path, default: []].append(contentsOf: answers) }
    }

    /// Replaces the queue of `path`.
    func replaceScript(_ path: String, _ answers: Answer...) {
        state.withLock { $0.scripts[path] = answers }
    }

    /// Sets the answer for paths with no script.
    func setFallback(_ answer: Answer) {
        state.withLock { $0.fallback = answer }
    }

    /// Every request, in order.
    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    /// The requests to one path, in order.
    func requests(to path: String) -> [HTTPRequest] {
        state.withLock { $0.requests.filter { $0.url.path == path } }
    }

    /// The form fields of a request body, or nil when it is not a form.
    func form(of request: HTTPRequest) -> FormBody? {
        FormBody(decoding: request.body)
    }

    func send(_ request: HTTPRequest, options: TransportOptions) async throws(TransportError) -> HTTPResponse {
        let path = request.url.path
        var answer = state.withLock { state -> Answer in
            state.requests.append(request)
            guard var queue = state.scripts[path], let first = queue.first else { return state.fallback }
            if queue.count > 1 {
                queue.removeFirst()
                state.scripts[path] = queue
            }
            return first
        }
        clock?.advance(by: callDuration)
        while case .handler(let compute) = answer { answer = compute(request) }
        switch answer {
        case .response(let status, let headers, let body):
            guard let origin = request.origin else { throw .invalidRequest(reason: "no origin") }
            return HTTPResponse(status: status, headers: headers, body: body, origin: origin)
        case .failure(let error):
            throw error
        case .handler:
            throw .invalidRequest(reason: "unreachable")
        }
    }
}
