import Foundation
import Glibc
import VersolaHTTP

/// Measures how many small requests per second the HTTP server answers: a few raw
/// keep-alive clients, each on its own thread, send `GET /` and read a 2-byte answer in a loop.
func serverBenchmarks(_ report: BenchReport) async throws {
    let body = Array("ok".utf8)
    let server = try HTTPServer.start { _ in .respond(HTTPServerResponse(status: 200, body: body)) }
    let clients = 4
    let seconds = report.seconds
    let port = server.port
    let start = DispatchTime.now().uptimeNanoseconds
    let total = await withTaskGroup(of: Int.self) { group in
        for _ in 0..<clients {
            group.addTask {
                await onOwnThread { BenchClient(port: port)?.run(seconds: seconds, bodyLength: body.count) ?? 0 }
            }
        }
        return await group.reduce(0, +)
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    report.print("http_server_requests_per_s", Double(total) / elapsed, unit: "req/s")

    // Versola's own client: sequential small GETs over libcurl, connection kept alive.
    let transport = CurlTransport()
    if let url = URL(string: "\(server.baseURL)/") {
        var count = 0
        let clientStart = DispatchTime.now().uptimeNanoseconds
        let deadline = clientStart + UInt64(seconds * 1e9)
        while DispatchTime.now().uptimeNanoseconds < deadline {
            if (try? await transport.send(HTTPRequest(url: url), options: TransportOptions())) != nil { count += 1 }
        }
        let clientSeconds = Double(DispatchTime.now().uptimeNanoseconds - clientStart) / 1e9
        report.print("http_roundtrip_loopback_per_s", Double(count) / clientSeconds, unit: "req/s")
    }

    // The same server seen by curl: a shell loop (a process and a connection per request),
    // and one curl fetching many URLs over a kept-alive connection.
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") {
        let url = "\(server.baseURL)/"
        let loopCount = 200
        if let seconds = await timeShell("for i in $(seq \(loopCount)); do curl -s -o /dev/null \(url); done") {
            report.print("http_server_curl_loop_requests_per_s", Double(loopCount) / seconds, unit: "req/s")
        }
        let reuseCount = 2000
        let urls = String(repeating: "\(url) ", count: reuseCount)
        if let seconds = await timeShell("curl -s \(urls) > /dev/null") {
            report.print("http_server_curl_keepalive_requests_per_s", Double(reuseCount) / seconds, unit: "req/s")
        }
    }
    await server.stop()
}

/// Runs a `/bin/sh` command on its own thread; its wall time in seconds, or nil if it failed.
private func timeShell(_ command: String) async -> Double? {
    await onOwnThread {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.standardOutput = FileHandle.nullDevice
        let start = DispatchTime.now().uptimeNanoseconds
        do { try process.run() } catch { return nil }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}

/// Runs blocking work on a new thread, off Swift's cooperative pool.
private func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// One keep-alive connection sending `GET /` over and over.
private final class BenchClient {
    private let descriptor: Int32

    init?(port: UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
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
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Sends requests for `seconds` (after 100 warm-up ones); returns how many were answered.
    func run(seconds: Double, bodyLength: Int) -> Int {
        let request = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<100 where !roundTrip(request, &buffer, bodyLength) { return 0 }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        var count = 0
        while DispatchTime.now().uptimeNanoseconds < deadline {
            guard roundTrip(request, &buffer, bodyLength) else { break }
            count += 1
        }
        return count
    }

    /// Writes one request and reads until its whole answer (head and body) is in.
    private func roundTrip(_ request: [UInt8], _ buffer: inout [UInt8], _ bodyLength: Int) -> Bool {
        let sent = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { return false }
        var received: [UInt8] = []
        let headEnd = Array("\r\n\r\n".utf8)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            received += buffer[0..<count]
            if let end = received.firstRange(of: headEnd), received.count - end.upperBound >= bodyLength {
                return true
            }
        }
    }
}
