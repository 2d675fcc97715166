import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

@testable import VersolaCommand

/// The local doors of L4 and the agent's hygiene, with real processes: the `versola` binary
/// under a permissive umask, profiles another user could have planted (a second user created
/// by the test when it runs as root), and a started agent inspected through `/proc` and `prlimit`.
@Suite("Local process scenarios", .serialized)
struct LocalProcessScenarios {
    /// Runs `versola arguments` through `sh` so that `prelude` (`umask 000`, `cd DIR`,
    /// `exec 7<FILE`) applies to it.
    static func runInShell(_ cli: CLIHarness, prelude: String, _ arguments: [String]) async throws -> CLIHarness.Outcome {
        let stem = cli.home.path + "/sh-" + UUID().uuidString.prefix(8)
        let script = prelude + "; exec \"$0\" \"$@\""
        let child = try cli.spawn("/bin/sh", ["-c", script, CLIHarness.executable] + arguments, stem: stem)
        return await cli.finished(child, stem: stem)
    }

    /// Every directory under `root` (itself included) with its mode.
    static func directories(under root: String) -> [(String, mode_t)] {
        var found: [(String, mode_t)] = []
        var info = stat()
        if lstat(root, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { found.append((root, info.st_mode & 0o7777)) }
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return found }
        while let name = enumerator.nextObject() as? String {
            let path = root + "/" + name
            if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { found.append((path, info.st_mode & 0o7777)) }
        }
        return found
    }

    @Test("L4: under umask 000 every directory login and the agent create is 0700, parents included")
    func permissiveUmaskStillMakesPrivateDirectories() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            let deep = cli.home.path + "/deep"
            let places = [
                "XDG_CONFIG_HOME": deep + "/c1/c2/config", "XDG_STATE_HOME": deep + "/s1/state",
            ]
            let extra = places.map { "export \($0.key)=\($0.value)" }.joined(separator: "; ")
            let login = try await Self.runInShell(
                cli, prelude: "umask 000; \(extra)",
                ["login", "--issuer", cli.idp.issuer, "--client-id", "versola-test", "--browser-command", CLIHarness.browser])
            #expect(login.status == 0, "\(login.stderr)")
            let status = try await Self.runInShell(cli, prelude: "umask 000; \(extra)", ["status"])
            #expect(status.status == 0, "\(status.stderr)")
            let created = Self.directories(under: deep).filter { $0.0 != deep } + Self.directories(under: cli.agentDirectory)
            #expect(created.count >= 8, "\(created.map(\.0))")
            for (path, mode) in created {
                #expect(mode == 0o700, "\(path) is \(String(mode, radix: 8))")
            }
        }
    }

    @Test("L4: a profile file or directory that others can write is refused, naming the fix")
    func looseProfileModesAreRefused() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let profiles = cli.home.path + "/config/versola/profiles"
            let file = profiles + "/default.json"
            for (path, mode, fix) in [
                (file, mode_t(0o622), "chmod 600 \(file)"), (file, 0o660, "chmod 600 \(file)"),
                (profiles, 0o777, "chmod 700 \(profiles)"), (cli.home.path + "/config/versola", 0o770, "chmod 700"),
            ] {
                let original = try #require(Self.mode(of: path))
                chmod(path, mode)
                let outcome = try await cli.run(["status", "--no-agent"])
                chmod(path, original)
                #expect(outcome.status == 6, "\(path) \(String(mode, radix: 8)): \(outcome.stderr)")
                #expect(outcome.stderr.contains("writable by other users"), "\(outcome.stderr)")
                #expect(outcome.stderr.contains(fix), "\(outcome.stderr)")
            }
            // Readable by others is fine for settings (no secret in a profile); tightened back, it works.
            chmod(file, 0o644)
            #expect(try await cli.run(["status", "--no-agent"]).status == 0)
        }
    }

    @Test("L4: a profile planted by another local user is refused and its browser command never runs")
    func plantedProfileIsRefused() async throws {
        guard getuid() == 0 else {
            print("L4 planted-profile scenario skipped: it creates a second user, which needs root (running as uid \(getuid()))")
            return
        }
        let other = try await onOwnThread { try SecondUser.ensure() }
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            // A permissive umask left the config home open to everyone; the other user fills it.
            let config = cli.home.path + "/config"
            try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
            chmod(cli.home.path, 0o711)
            chmod(config, 0o777)
            let marker = cli.home.path + "/tmp/planted-ran"
            let profile = #"{"issuer":"\#(cli.idp.issuer)","clientID":"versola-test","browserCommand":"touch \#(marker) %s"}"#
            let plantCommand = "mkdir -p \(config)/versola/profiles && chmod 755 \(config)/versola \(config)/versola/profiles"
                + " && printf '%s' '\(profile)' > \(config)/versola/profiles/default.json"
                + " && chmod 644 \(config)/versola/profiles/default.json"
            let plant = try await onOwnThread { try other.run(plantCommand) }
            #expect(plant == 0)
            var info = stat()
            #expect(stat(config + "/versola/profiles/default.json", &info) == 0 && info.st_uid == other.uid)

            let login = try await cli.run(["login"])
            #expect(login.status == 6, "\(login.stderr)")
            #expect(login.stderr.contains("belongs to another user"), "\(login.stderr)")
            #expect(!FileManager.default.fileExists(atPath: marker))
            #expect(await cli.requestCount(.authorize) == 0)
            // And nothing is written into the planted directories either.
            let again = try await cli.run(
                ["login", "--issuer", cli.idp.issuer, "--client-id", "versola-test", "--browser-command", CLIHarness.browser])
            #expect(again.status == 6, "\(again.stderr)")
            #expect(!FileManager.default.fileExists(atPath: marker))
        }
    }

    @Test("L4: a started agent holds no descriptor of its caller, runs in /, cannot dump core and is not dumpable")
    func agentProcessHygiene() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            let workDirectory = cli.home.path + "/work"
            try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
            let heldFile = cli.home.path + "/held-by-caller"
            _ = FileManager.default.createFile(atPath: heldFile, contents: Data("x".utf8))
            // The caller works in its own directory and hands its children an extra descriptor.
            let status = try await Self.runInShell(cli, prelude: "cd \(workDirectory) && exec 7<\(heldFile) 8>&1", ["status"])
            #expect(status.status == 0, "\(status.stderr)")
            let pid = try #require(Self.agentPID(socket: cli.agentDirectory + "/agent.sock"))

            let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { Int32($0) }
            var targets: [Int32: String] = [:]
            for descriptor in descriptors {
                targets[descriptor] = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)")
            }
            for descriptor: Int32 in [0, 1, 2] { #expect(targets[descriptor] == "/dev/null", "fd \(descriptor): \(targets)") }
            #expect(!targets.values.contains(heldFile), "\(targets)")
            #expect(!targets.values.contains { $0.hasPrefix(cli.home.path + "/io-") || $0.hasPrefix(cli.home.path + "/sh-") }, "\(targets)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd") == "/")
            // It was started with GnuTLS's own start turned off (AgentLaunchEnvironment). Its
            // /proc entries are root's (it is not dumpable), so only root reads its environment.
            if getuid() == 0 {
                let started = try #require(FileManager.default.contents(atPath: "/proc/\(pid)/environ"))
                #expect(started.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == "GNUTLS_NO_IMPLICIT_INIT=1" })
            }

            let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
            let coreLine = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") })
            #expect(coreLine.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == ["0", "0"], "\(coreLine)")
            let prlimit = try Self.output(of: "/usr/bin/prlimit", ["--pid", "\(pid)", "--core", "--noheadings", "--raw", "--output", "SOFT,HARD"])
            #expect(prlimit.trimmingCharacters(in: .whitespacesAndNewlines) == "0 0", "\(prlimit)")

            // A process that is not dumpable has its /proc entries owned by root, and reports it so.
            let statusText = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            #expect(statusText.contains("Name:\tversola"))
            var info = stat()
            #expect(stat("/proc/\(pid)/status", &info) == 0)
            if getuid() != 0 {
                #expect(info.st_uid == 0, "the agent's /proc entries belong to uid \(info.st_uid): it is dumpable")
            } else {
                let other = try await onOwnThread { try SecondUser.ensure() }
                // The build may sit where the other user cannot reach it: it runs a copy.
                guard let command = try other.reachableCommand(cli: cli) else {
                    print("L4 not-dumpable check as a second user skipped: a directory above \(cli.home.path) is closed to other users")
                    return
                }
                #expect(try await onOwnThread { try other.agentIsNotDumpable(cli: cli, command: command) })
            }
        }
    }

    static func mode(of path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    /// The process id of the agent listening on `socket` (`SO_PEERCRED`).
    static func agentPID(socket: String) -> pid_t? {
        guard let connection = try? UnixSocket.connect(to: socket) else { return nil }
        defer { close(connection) }
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        let result = withUnsafeMutablePointer(to: &credentials) {
            getsockopt(connection, SOL_SOCKET, SO_PEERCRED, $0, &length)
        }
        return result == 0 && credentials.0 > 0 ? credentials.0 : nil
    }

    /// What `executable arguments` prints.
    static func output(of executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
