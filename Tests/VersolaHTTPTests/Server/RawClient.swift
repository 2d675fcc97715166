import Foundation
import Glibc

@testable import VersolaHTTP

/// Runs blocking work on its own thread, never on Swift's cooperative pool (which has
/// only two threads here and also runs the server's handlers).
func offPool<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.stackSize = 512 * 1024
        thread.start()
    }
}

/// A plain TCP client for tests: writes raw bytes and reads raw answers, so that what the
/// server does on the wire (a reset, a close without answer) is seen exactly.
/// Every call blocks: use it inside ``offPool(_:)``.
final class RawClient: @unchecked Sendable {
    /// How a read loop ended.
    enum Ending: Error, Equatable {
        case closed
        case reset
        case timedOut
        case failed(Int32)
    }

    /// One parsed answer.
    struct Response {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let descriptor: Int32
    private var pending: [UInt8] = []

    /// Connects to the server's address and port; nil when the connection fails.
    /// The receive timeout (30 s by default) only guards against a hung test; it is generous
    /// because a loaded machine may delay the server by seconds.
    init?(address: HTTPServerAddress, port: UInt16, timeoutSeconds: Int = 30) {
        let family = address == .ipv4Loopback ? AF_INET : AF_INET6
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result: Int32
        if address == .ipv4Loopback {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = port.bigEndian
            socketAddress.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
            result = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = port.bigEndian
            socketAddress.sin6_addr = in6addr_loopback
            result = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        guard result == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Writes all of `text`; false when the write failed.
    @discardableResult
    func send(_ text: String) -> Bool {
        send(Array(text.utf8))
    }

    /// Writes all of `bytes`; false when the write failed.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        ServerSocket.sendAll(descriptor, bytes)
    }

    /// Reads more bytes into `pending`; the ending when nothing more came.
    private func fill() -> Ending? {
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        let count = scratch.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            pending += scratch[0..<count]
            return nil
        }
        if count == 0 { return .closed }
        switch errno {
        case ECONNRESET: return .reset
        case EAGAIN: return .timedOut
        case let code: return .failed(code)
        }
    }

    /// Reads one answer (a head and a `Content-Length` body); nil when the connection
    /// ended first, with the way it ended.
    func readResponse() -> Result<Response, Ending> {
        while true {
            if let response = takeResponse() { return .success(response) }
            if let ending = fill() { return .failure(ending) }
        }
    }

    /// Reads until the server ends the connection; returns the bytes that came and how it ended.
    func readUntilEnd() -> (bytes: [UInt8], ending: Ending) {
        while true {
            if let ending = fill() {
                defer { pending = [] }
                return (pending, ending)
            }
        }
    }

    private func takeResponse() -> Response? {
        let separator = Array("\r\n\r\n".utf8)
        guard let headEnd = pending.firstRange(of: separator) else { return nil }
        let head = String(decoding: pending[..<headEnd.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (
                String(line[..<colon]),
                line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            )
        }
        let length = headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0
        let bodyStart = headEnd.upperBound
        guard pending.count - bodyStart >= length else { return nil }
        let body = Array(pending[bodyStart..<bodyStart + length])
        pending.removeSubrange(0..<bodyStart + length)
        return Response(status: status, headers: headers, body: body)
    }
}
