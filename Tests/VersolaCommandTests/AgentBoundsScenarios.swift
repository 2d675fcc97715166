import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE

@testable import VersolaCommand

/// The agent stays bounded whatever a caller of the same user does (SECURITY.md): connections
/// are capped (the oldest still sending makes room), requests are small, and sessions of
/// profile locations are kept for the most recently used few, their inotify instances released.
@Suite("agent bounds", .serialized)
struct AgentBoundsScenarios {
    /// The highest resident memory the agent may reach in this test, in kB: 64 MB. It starts
    /// near 20 MB; with 64 connections of up to 256 KiB each and 32 sessions it was measured
    /// at 46 MB (a debug build). Without the bounds, 200 connections took it to 746 MB.
    static let memoryBound = 64 * 1024

    /// A field of `/proc/<pid>/status`, in kB.
    static func status(_ field: String, of pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = text.split(separator: "\n").first { $0.hasPrefix(field + ":") }
        return line.flatMap { Int($0.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") }
    }

    /// How many inotify instances `pid` holds.
    static func inotifyCount(of pid: pid_t) -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return descriptors.filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == "anon_inode:inotify"
        }.count
    }

    /// `count` homes, each with the harness's profile, as a script running `mktemp -d` would make.
    static func makeHomes(_ cli: CLIHarness, count: Int) throws -> [XDGDirectories] {
        let profile = try Data(contentsOf: URL(fileURLWithPath: cli.home.path + "/config/versola/profiles/default.json"))
        return try (0..<count).map { index in
            let root = cli.home.path + "/homes/\(index)"
            let profiles = root + "/config/versola/profiles"
            for path in [root, root + "/config", root + "/config/versola", profiles, root + "/state"] {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
                chmod(path, 0o700)
            }
            try profile.write(to: URL(fileURLWithPath: profiles + "/default.json"))
            chmod(profiles + "/default.json", 0o600)
            return XDGDirectories(
                stateHome: URL(fileURLWithPath: root + "/state", isDirectory: true),
                configHome: URL(fileURLWithPath: root + "/config", isDirectory: true))
        }
    }

    /// A connection that sends part of a request (no newline) and then nothing.
    static func stalledConnection(to socket: String) -> Int32? {
        guard let connection = try? UnixSocket.connect(to: socket) else { return nil }
        _ = fcntl(connection, F_SETFL, fcntl(connection, F_GETFL) | O_NONBLOCK)
        let junk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        _ = junk.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return connection
    }

    @Test("L4: under 500 stalled connections and 500 distinct homes the agent keeps answering, stays under 64 MB and keeps 32 inotify instances at most")
    func boundedUnderLoad() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let pid = try #require(AgentWorkScenarios.agentPID(cli))
            let location = try #require(AgentLocation.resolve(environment: cli.environment))
            let client = AgentClient(location: location, executable: nil, environment: cli.environment)
            let homes = try await onOwnThread { try Self.makeHomes(cli, count: 500) }
            let started = ContinuousClock.now

            // blocking: 500 agent round trips (seconds in all), off the task pool
            let (stalled, answered, inotifyCounts) = await DedicatedThread.run { () -> ([Int32], Int, [Int]) in
                var stalled: [Int32] = []
                var answered = 0
                var inotifyCounts: [Int] = []
                for (index, home) in homes.enumerated() {
                    // Every request comes behind a new stalled connection: 500 of each in all.
                    if let connection = Self.stalledConnection(to: location.socketPath) { stalled.append(connection) }
                    let reply = client.send(AgentRequest(.status, profile: "default", directories: home), start: false)
                    if case .success(let status)? = reply, status["state"] == "unauthenticated" { answered += 1 }
                    if index % 100 == 99 { inotifyCounts.append(Self.inotifyCount(of: pid)) }
                }
                return (stalled, answered, inotifyCounts)
            }
            defer { stalled.forEach { close($0) } }
            // Dropped sessions release theirs a moment later, so a few more may still be open.
            for count in inotifyCounts { #expect(count <= AgentLimits.maximumSessions + 8) }
            #expect(stalled.count == 500)
            #expect(answered == 500, "every request of a new home was answered")
            // The first home's session was dropped long ago and comes back from its store.
            let status = try await cli.run(["status", "--json"])
            #expect(status.status == 0, "\(status.stderr)")
            #expect(try JSONValue(parsing: status.stdout)["state"] == "authenticated")

            let peak = try #require(Self.status("VmHWM", of: pid))
            let resident = try #require(Self.status("VmRSS", of: pid))
            let threads = try #require(Self.status("Threads", of: pid))
            print("agent under load: VmHWM \(peak) kB, VmRSS \(resident) kB, \(threads) threads, \(Self.inotifyCount(of: pid)) inotify, \(ContinuousClock.now - started)")
            // Under the thread sanitizer memory is mostly its shadow: only the other bounds hold there.
            if ProcessInfo.processInfo.environment["VERSOLA_SANITIZER"] == nil {
                #expect(peak < Self.memoryBound, "peak resident memory \(peak) kB")
            }
            #expect(Self.inotifyCount(of: pid) <= AgentLimits.maximumSessions + 1)
            #expect(threads < 200, "\(threads) threads")

            // A request larger than the agent reads is never sent to it.
            let huge = AgentRequest(
                .request(AgentHTTPRequest(method: "GET", url: "", body: Array(repeating: 0x61, count: AgentLimits.maximumRequestBytes))),
                profile: "default")
            // blocking: encoding the 256 KiB request is CPU work (seen in a thread dump), off the task pool
            let hugeReply = await DedicatedThread.run { client.send(huge, start: false) }
            #expect(hugeReply == nil)
        }
    }

    @Test("L4: a request is read within its deadline and its size limit, or not at all")
    func requestReadIsBounded() throws {
        func pair() -> (Int32, Int32) {
            var ends: [Int32] = [-1, -1]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
            return (ends[0], ends[1])
        }
        let (reader, writer) = pair()
        defer { [reader, writer].forEach { close($0) } }
        var pending: [UInt8] = []
        // Nothing sent, and the deadline already passed: no waiting for the sender.
        #expect(UnixSocket.readLine(from: reader, pending: &pending, limit: 16, deadline: .now) == nil)
        // Past the limit without a newline: refused.
        #expect(UnixSocket.write(Array(String(repeating: "x", count: 40).utf8), to: writer))
        #expect(UnixSocket.readLine(from: reader, pending: &pending, limit: 16, deadline: .now + .seconds(5)) == nil)

        let (shortReader, shortWriter) = pair()
        defer { [shortReader, shortWriter].forEach { close($0) } }
        #expect(UnixSocket.write(Array("{\"op\":\"ping\"}\n".utf8), to: shortWriter))
        var fresh: [UInt8] = []
        let line = UnixSocket.readLine(from: shortReader, pending: &fresh, limit: 16, deadline: .now + .seconds(5))
        #expect(line == Array("{\"op\":\"ping\"}".utf8))
        #expect(AgentLimits.maximumRequestBytes == 256 * 1024 && AgentLimits.maximumConnections == 64)
        #expect(AgentLimits.maximumSessions == 32 && AgentLimits.requestDeadline == .seconds(10))
    }
}
