import Foundation
import Testing

/// Runs the system's `curl`, an HTTP client independent of this package, against a real socket.
enum Curl {
    /// What one run of curl saw.
    struct Outcome: Sendable {
        /// curl's exit code: 0, or 7 (refused), 52 (empty reply), 56 (receive failure), ….
        var exitCode: Int32
        /// The status code, 0 when no response arrived.
        var status: Int
        /// The response body.
        var body: String
        /// The response's header block as received (status line included).
        var headerBlock: String
    }

    static let path = "/usr/bin/curl"

    /// `curl -s` with `arguments` and `url`, never following redirects.
    static func run(_ url: String, _ arguments: [String] = []) async throws -> Outcome {
        try #require(FileManager.default.isExecutableFile(atPath: path), "curl is needed")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("idp-curl-\(UUID().uuidString)")
        let headers = output.appendingPathExtension("headers")
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: headers)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [
            "-s", "--max-time", "20", "-o", output.path, "-D", headers.path, "-w", "%{http_code}",
        ] + arguments + [url]
        let statusPipe = Pipe()
        process.standardOutput = statusPipe
        process.standardError = FileHandle.nullDevice
        let exitCode: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in continuation.resume(returning: finished.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let statusText = String(decoding: statusPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let body = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        let headerBlock = (try? String(contentsOf: headers, encoding: .utf8)) ?? ""
        return Outcome(exitCode: exitCode, status: Int(statusText) ?? 0, body: body, headerBlock: headerBlock)
    }
}
