import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// S11: from one process committing a change to a profile's record to another process's
/// state stream delivering it. A writer process (this binary, started with
/// `VERSOLA_BENCH_SYNC_WRITER`) alternates the record between a grant and nothing, one change
/// per line it reads, and prints the monotonic time at which each write began (so the figure
/// includes the write and its fsyncs); this process holds a
/// `Session` on the same profile and notes when each change arrives on `states()`.
func syncBenchmarks(_ report: BenchReport) async throws {
    let changes = 200
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("versola-bench-sync-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let directories = XDGDirectories(
        stateHome: root.appendingPathComponent("state"), configHome: root.appendingPathComponent("config"))
    let storage = try SessionStorage(profile: "sync", directories: directories)
    let session = try Session(
        configuration: SessionConfiguration(client: SyncWriter.client), store: storage.store)
    await session.start()
    var states = session.states().makeAsyncIterator()
    _ = await states.next()

    let writer = Process()
    writer.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    writer.environment = ProcessInfo.processInfo.environment.merging(["VERSOLA_BENCH_SYNC_WRITER": root.path]) { $1 }
    let toWriter = Pipe()
    let fromWriter = Pipe()
    writer.standardInput = toWriter
    writer.standardOutput = fromWriter
    try writer.run()
    defer { writer.terminate() }
    var lines = SyncWriter.Lines(fromWriter.fileHandleForReading)

    var latencies: [Double] = []
    for _ in 0..<changes {
        toWriter.fileHandleForWriting.write(Data("go\n".utf8))
        guard await states.next() != nil else { break }
        let delivered = SyncWriter.monotonicNanoseconds()
        guard let line = lines.next(), let committed = UInt64(line) else { break }
        latencies.append((Double(delivered) - Double(committed)) / 1e6)
    }
    try? toWriter.fileHandleForWriting.close()
    guard latencies.count == changes else {
        print("sync: the writer stopped after \(latencies.count) changes")
        return
    }
    latencies.sort()
    report.print("sync_change_to_stream_median_ms", latencies[changes / 2], unit: "ms")
    report.print("sync_change_to_stream_p99_ms", latencies[(changes * 99) / 100 - 1], unit: "ms")
    report.print("sync_change_to_stream_max_ms", latencies[changes - 1], unit: "ms")
}

/// The writer half of ``syncBenchmarks(_:)``.
enum SyncWriter {
    static let client = ClientConfiguration(issuer: "https://sync.example", clientID: "bench")

    /// CLOCK_MONOTONIC, which every process on the machine shares.
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// Runs as the writer when the environment asks for it; returns false otherwise.
    static func runIfAsked() async -> Bool {
        guard let root = ProcessInfo.processInfo.environment["VERSOLA_BENCH_SYNC_WRITER"] else { return false }
        let base = URL(fileURLWithPath: root)
        let directories = XDGDirectories(
            stateHome: base.appendingPathComponent("state"), configHome: base.appendingPathComponent("config"))
        guard let storage = try? SessionStorage(profile: "sync", directories: directories) else { return true }
        let store = storage.store
        let payload = #"{"iss":"https://sync.example","sub":"bench","aud":"bench","exp":4102444800,"iat":1700000000}"#
        let idToken = "eyJhbGciOiJSUzI1NiJ9." + Base64URL.encode(Array(payload.utf8)) + ".c2ln"
        var signedIn = false
        while readLine() != nil {
            signedIn.toggle()
            let grant = SessionRecord(
                issuer: client.issuer, clientID: client.clientID, subject: "bench", refreshToken: "refresh-\(UUID())",
                idToken: idToken)
            var started: UInt64 = 0
            try? await store.withExclusiveAccess { () throws(VersolaError) in
                // The clock starts as the write begins: the figure includes writing (and fsync).
                started = monotonicNanoseconds()
                if signedIn { try await store.save(grant) } else { try await store.wipe() }
            }
            let line = Array("\(started)\n".utf8)
            _ = line.withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
        }
        return true
    }

    /// Lines read from a pipe.
    struct Lines {
        let handle: FileHandle
        var buffer: [UInt8] = []

        init(_ handle: FileHandle) { self.handle = handle }

        mutating func next() -> String? {
            while true {
                if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[..<newline], as: UTF8.self)
                    buffer.removeSubrange(...newline)
                    return line
                }
                let chunk = handle.availableData
                if chunk.isEmpty { return nil }
                buffer += chunk
            }
        }
    }
}
