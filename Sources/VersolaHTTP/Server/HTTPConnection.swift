import Glibc

/// Serves one accepted connection on its own thread: blocking reads and writes with the
/// read timeout, the handler run as a task whose jobs this thread runs while it waits.
struct HTTPConnection: Sendable {
    let descriptor: Int32
    let peer: HTTPServerPeer
    let limits: HTTPServerLimits
    let registry: ConnectionRegistry
    let acceptHook: (@Sendable (HTTPServerPeer) async -> HTTPServerAcceptDecision)?
    let handler: @Sendable (HTTPServerRequest) async -> HTTPServerAction

    /// How the connection ends.
    private enum Ending {
        case close
        case lingeringClose
        case reset
    }

    /// Runs the connection to its end and releases the descriptor.
    func run(identifier: Int) {
        let ending = serve()
        registry.unregister(identifier)
        switch ending {
        case .close: close(descriptor)
        case .lingeringClose: ServerSocket.lingeringClose(descriptor)
        case .reset: ServerSocket.resetAndClose(descriptor)
        }
    }

    private func serve() -> Ending {
        // The handler's jobs run on this thread while it waits for them.
        let bridge = BlockingBridge()
        if let acceptHook {
            let peer = self.peer
            switch bridge.wait(for: { await acceptHook(peer) }) {
            case .serve: break
            case .closeBeforeReading, nil: return .close
            case .resetBeforeReading: return .reset
            }
        }
        ServerSocket.configureConnection(descriptor, timeout: limits.readTimeout)
        let deadline = limits.connectionLifetime.map { ContinuousClock.now + $0 }
        var parser = HTTPRequestParser(limits: limits)
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            while let event = parser.next() {
                switch event {
                case .continueExpected:
                    guard ServerSocket.sendAll(descriptor, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else {
                        return .close
                    }
                case .failure(let error):
                    let answer = HTTPServerResponse.text("\(error.detail)\n", status: error.status)
                    _ = ServerSocket.sendAll(
                        descriptor, answer.serialized(date: HTTPDate.now(), close: true, includeBody: true))
                    return .lingeringClose
                case .request(var request):
                    request.peer = peer
                    let handler = self.handler
                    let finalRequest = request
                    switch bridge.wait(for: { await handler(finalRequest) }) {
                    case .respond(let response):
                        let keepAlive = request.keepAlive && !response.asksToClose && !registry.isStopped
                        let bytes = response.serialized(
                            date: HTTPDate.now(), close: !keepAlive, includeBody: request.method != "HEAD")
                        guard ServerSocket.sendAll(descriptor, bytes), keepAlive else { return .close }
                    case .closeWithoutAnswer, nil:
                        return .close
                    case .reset:
                        return .reset
                    }
                }
            }
            switch receive(into: &scratch, before: deadline) {
            case .bytes(let count):
                parser.append(scratch[0..<count])
            case .endOfStream, .failed:
                return .close
            case .timedOut:
                guard parser.hasPartialRequest else { return .close }
                let error = HTTPRequestParseError.timedOut
                let answer = HTTPServerResponse.text("\(error.detail)\n", status: error.status)
                _ = ServerSocket.sendAll(
                    descriptor, answer.serialized(date: HTTPDate.now(), close: true, includeBody: true))
                return .close
            }
        }
    }

    /// One read, its wait cut to what is left of the connection's lifetime; `.timedOut` at
    /// once when that has passed.
    private func receive(into scratch: inout [UInt8], before deadline: ContinuousClock.Instant?) -> ServerSocket.ReadResult {
        if let deadline {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return .timedOut }
            if left < limits.readTimeout { ServerSocket.configureConnection(descriptor, timeout: left) }
        }
        return ServerSocket.receive(descriptor, into: &scratch)
    }
}
