import Foundation
import Glibc
import Synchronization

@testable import VersolaHTTP

/// A tiny HTTP/1.1 server over POSIX sockets on 127.0.0.1, for transport and retry tests.
///
/// Each request received takes the next ``Action`` of the script (the last one repeats). An
/// action that needs no request (``Action/closeBeforeReading``) is taken when a connection is
/// accepted instead. The server counts connections and requests, and keeps what it received.
final class ScriptedServer: Sendable {
    /// What the server does with a connection or request.
    enum Action: Sendable {
        /// Accept the connection and close it before reading anything.
        case closeBeforeReading
        /// Accept the connection, write these bytes at once without reading, and close it
        /// (plain text to a TLS client makes its handshake fail).
        case writeOnAccept([UInt8])
        /// Read the request, then reset the connection (SO_LINGER 0).
        case resetAfterReading
        /// Read the request, then close without answering.
        case closeAfterReading
        /// Read the request and never answer (until the client goes away or the server stops).
        case stall
        /// Answer with this status, headers and body (with Content-Length); keep the connection
        /// open for more requests when `keepAlive`.
        case respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], keepAlive: Bool = false)
        /// Answer with a body whose length is not declared (ends when the connection closes).
        case respondUndeclaredLength(status: Int, body: [UInt8])
        /// Send a status line and a header, then close before the blank line.
        case truncatedHeaders
        /// Read the request, send a status line, then one more header byte every
        /// `milliseconds` for as long as the client listens: an answer that is always arriving
        /// and never done.
        case drip(milliseconds: Int)
    }

    /// A request as received.
    struct ReceivedRequest: Sendable {
        var method: String
        var target: String
        var headers: HTTPHeaders
        var body: [UInt8]
    }

    private struct State {
        var script: [Action]
        var requests: [ReceivedRequest] = []
        var connections = 0
        var stopped = false
    }

    /// The port it listens on (127.0.0.1).
    let port: UInt16
    private let listener: Int32
    private let state: Mutex<State>

    /// Starts listening and accepting on a background thread.
    init(_ script: [Action]) throws {
        precondition(!script.isEmpty, "a script needs at least one action")
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ServerError.socket }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw ServerError.socket
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        state = Mutex(State(script: script))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    enum ServerError: Error { case socket }

    /// `http://127.0.0.1:port` + `path`.
    func url(_ path: String = "/") -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// The origin of ``url(_:)``.
    var origin: Origin { Origin(scheme: "http", host: "127.0.0.1", port: Int(port))! }

    /// Requests fully read so far.
    var requestCount: Int { state.withLock { $0.requests.count } }
    /// Connections accepted so far.
    var connectionCount: Int { state.withLock { $0.connections } }
    /// Every request read, in order.
    var requests: [ReceivedRequest] { state.withLock { $0.requests } }

    /// Stops accepting and ends every connection thread within about 50 ms.
    func stop() {
        let wasStopped = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        if !wasStopped { shutdown(listener, Int32(SHUT_RDWR)) }
    }

    deinit {
        stop()
        close(listener)
    }

    private var stopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop() {
        while !stopped {
            guard waitReadable(listener) else { continue }
            // Close-on-exec: a copy of the connection inherited by a process another test starts
            // would keep it open after the script closes it (libcurl then waits for an answer).
            let client = CloseOnExec.accept(listener)
            guard client >= 0 else { continue }
            let onAccept = state.withLock { state -> Action? in
                state.connections += 1
                switch state.script[0] {
                case .closeBeforeReading, .writeOnAccept:
                    let action = state.script[0]
                    if state.script.count > 1 { state.script.removeFirst() }
                    return action
                default:
                    return nil
                }
            }
            if let onAccept {
                if case .writeOnAccept(let bytes) = onAccept { writeAll(client, bytes) }
                close(client)
                continue
            }
            Thread { [self] in serve(client) }.start()
        }
    }

    /// Serves requests on one connection until an action ends it.
    private func serve(_ fd: Int32) {
        var buffer: [UInt8] = []
        while let request = readRequest(fd, buffer: &buffer) {
            let action = state.withLock { state -> Action in
                state.requests.append(request)
                let action = state.script[0]
                if state.script.count > 1 { state.script.removeFirst() }
                return action
            }
            switch action {
            case .closeBeforeReading, .writeOnAccept, .closeAfterReading:
                close(fd)
                return
            case .resetAfterReading:
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                close(fd)
                return
            case .stall:
                while !stopped {
                    if waitReadable(fd) {
                        var byte: UInt8 = 0
                        if recv(fd, &byte, 1, 0) <= 0 { break }
                    }
                }
                close(fd)
                return
            case .respond(let status, let headers, let body, let keepAlive):
                var head = "HTTP/1.1 \(status) Scripted\r\nContent-Length: \(body.count)\r\n"
                for (name, value) in headers { head += "\(name): \(value)\r\n" }
                head += keepAlive ? "\r\n" : "Connection: close\r\n\r\n"
                writeAll(fd, Array(head.utf8) + body)
                if !keepAlive {
                    close(fd)
                    return
                }
            case .respondUndeclaredLength(let status, let body):
                writeAll(fd, Array("HTTP/1.1 \(status) Scripted\r\nConnection: close\r\n\r\n".utf8) + body)
                close(fd)
                return
            case .truncatedHeaders:
                writeAll(fd, Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n".utf8))
                close(fd)
                return
            case .drip(let milliseconds):
                writeAll(fd, Array("HTTP/1.1 200 OK\r\nX-Drip: ".utf8))
                while !stopped, send(fd, "a", 1, Int32(MSG_NOSIGNAL)) == 1 {
                    usleep(useconds_t(milliseconds * 1000))
                }
                close(fd)
                return
            }
        }
        close(fd)
    }

    /// Reads one request (head and Content-Length body); nil when the peer closed or the server stopped.
    private func readRequest(_ fd: Int32, buffer: inout [UInt8]) -> ReceivedRequest? {
        let blankLine: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer.firstRange(of: blankLine)?.upperBound
            if headEnd == nil {
                guard let more = readSome(fd) else { return nil }
                buffer += more
            }
        }
        guard let end = headEnd else { return nil }
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let requestLine = lines.isEmpty ? [] : lines.removeFirst().split(separator: " ").map(String.init)
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let bodyLength = Int(headers["Content-Length"] ?? "0") ?? 0
        while buffer.count < end + bodyLength {
            guard let more = readSome(fd) else { return nil }
            buffer += more
        }
        let body = Array(buffer[end..<(end + bodyLength)])
        buffer.removeFirst(end + bodyLength)
        return ReceivedRequest(
            method: requestLine.first ?? "", target: requestLine.count > 1 ? requestLine[1] : "", headers: headers,
            body: body)
    }

    private func readSome(_ fd: Int32) -> [UInt8]? {
        while !stopped {
            guard waitReadable(fd) else { continue }
            var chunk = [UInt8](repeating: 0, count: 16_384)
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            return Array(chunk[..<count])
        }
        return nil
    }

    /// Polls for 50 ms; true when `fd` is readable (or closed).
    private func waitReadable(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 50) > 0
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return }
            offset += written
        }
    }
}
