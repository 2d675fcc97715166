import Foundation
import Testing
import Versola
import VersolaJOSE
import VersolaTestIdP

/// A state directory on a small tmpfs that fills up while a refresh is on its way (P10 across
/// the agent's process boundary): the provider rotates the refresh token, the process that
/// received it cannot write the record, and the session must still hold the new token.
@Suite("a disk that fills during a refresh, end to end", .serialized)
struct FullDiskProcessScenarios {
    /// A tmpfs of its own at `path`, filled and emptied on demand.
    struct SmallDisk {
        let path: String
        var filler: String { path + "/filler" }

        /// Mounting needs root, which CI has; elsewhere these scenarios do not run (the
        /// in-process P10 scenarios and SpillFileTests still do).
        static var canMount: Bool { getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount") }

        static func mount(at path: String) throws -> SmallDisk {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", path])
            return SmallDisk(path: path)
        }

        /// Writes zeros until the file system says it is full.
        func fill() {
            _ = FileManager.default.createFile(atPath: filler, contents: nil)
            guard let handle = FileHandle(forWritingAtPath: filler) else { return }
            let chunk = Data(count: 4096)
            while (try? handle.write(contentsOf: chunk)) != nil {}
            try? handle.close()
        }

        func free() { try? FileManager.default.removeItem(atPath: filler) }

        func unmount() { try? Self.run("/bin/umount", ["-l", path]) }

        private static func run(_ tool: String, _ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        }
    }

    /// How the disk refuses the write. (A read-only remount cannot stand in for EROFS here: the
    /// refreshing process holds the profile's lock file open for writing, so the kernel refuses
    /// the remount with EBUSY for as long as the refresh runs. DiskFaultMatrixScenarios has
    /// EROFS, EIO, EDQUOT and a failing rename from a preloaded library instead.)
    enum Fault: String, CaseIterable, Sendable {
        /// ENOSPC: the file system fills up.
        case full

        func strike(_ disk: SmallDisk) {
            switch self {
            case .full: disk.fill()
            }
        }

        func heal(_ disk: SmallDisk) {
            switch self {
            case .full: disk.free()
            }
        }
    }

    /// Refreshes through `arguments` while the disk starts refusing writes after the refresh
    /// request reached the provider and before its answer (which carries the rotated token) comes back.
    static func refreshWhileTheDiskFails(_ cli: CLIHarness, disk: SmallDisk, _ fault: Fault, _ arguments: [String])
        async throws -> CLIHarness.Outcome
    {
        let before = await cli.requestCount(.token)
        await cli.idp.provider.arm(TestFaultRule(.token, .delay(milliseconds: 3000)))
        let refresh = Task { try await cli.run(arguments) }
        try await AgentWorkScenarios.waitFor(cli, .token, count: before + 1)
        fault.strike(disk)
        return try await refresh.value
    }

    @Test(
        "P10 P7 R6: a disk that fills (ENOSPC) during a refresh run by the agent's refresh process or by --no-agent loses no rotated token",
        .enabled(if: SmallDisk.canMount, "mounting the small tmpfs needs root"),
        arguments: Fault.allCases, [["token", "--force-refresh"], ["token", "--force-refresh", "--no-agent"]])
    func fullDiskDuringRefresh(_ fault: Fault, _ arguments: [String]) async throws {
        try await Self.signedIn { cli, disk in
            let refreshed = try await Self.refreshWhileTheDiskFails(cli, disk: disk, fault, arguments)
            #expect(refreshed.status == 0, "the refresh answered while the disk was full: \(refreshed.stderr)")
            #expect(refreshed.stdout.count > 20)
            let status = try JSONValue(parsing: try await cli.run(["status", "--json"]).stdout)
            #expect(status["state"] == "authenticated", "\(status)")
            fault.heal(disk)
            // Space is back: the next refresh spends the rotated token, never the old one (a reuse
            // the provider answers by revoking the grant).
            let before = await cli.requestCount(.token)
            let again = try await cli.run(arguments)
            #expect(again.status == 0, "after space returned: \(again.stderr)")
            #expect(await cli.requestCount(.token) == before + 1, "one refresh")
            let last = try await cli.run(["token", "--force-refresh"])
            #expect(last.status == 0, "the grant is still alive: \(last.stderr)")
        }
    }
}
