import Foundation
import Glibc

/// Plays other local processes and web pages against the loopback listener: raw requests with
/// any `Host`, and connections held open doing nothing or sending a request slowly. Every
/// blocking call runs on a thread of its own, never on Swift's cooperative pool (which also
/// runs the listener's handler).
enum LoopbackProbe {
    /// One GET of `target` to 127.0.0.1:`port` with `Host: host`; the status and the header
    /// lines of the answer, or nil when no answer came.
    static func get(port: UInt16, target: String, host: String) async -> (status: Int, head: String)? {
        await offPool {
            guard let descriptor = connectLoopback(port: port) else { return nil }
            defer { close(descriptor) }
            let request = "GET \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n"
            guard sendAll(descriptor, Array(request.utf8)) else { return nil }
            var answer: [UInt8] = []
            var scratch = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = scratch.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                answer += scratch[0..<count]
            }
            let text = String(decoding: answer, as: UTF8.self)
            let head = text.components(separatedBy: "\r\n\r\n").first ?? ""
            let statusLine = head.split(separator: "\r\n").first?.split(separator: " ")
            guard let statusLine, statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
            return (status, head)
        }
    }

    /// Opens `count` connections to 127.0.0.1:`port` and leaves them open: every other one
    /// idle, the rest having sent the start of a request and nothing more. Returns their
    /// descriptors (for ``closeAll(_:)``).
    static func holdOpen(port: UInt16, count: Int) async -> [Int32] {
        await offPool {
            (0..<count).compactMap { index -> Int32? in
                guard let descriptor = connectLoopback(port: port) else { return nil }
                if index % 2 == 1 { _ = sendAll(descriptor, Array("GET /callback?state=".utf8)) }
                return descriptor
            }
        }
    }

    static func closeAll(_ descriptors: [Int32]) {
        for descriptor in descriptors { close(descriptor) }
    }

    private static func offPool<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.stackSize = 512 * 1024
            thread.start()
        }
    }

    private static func connectLoopback(port: UInt16) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        // A guard against a hung scenario only.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    private static func sendAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }
}
