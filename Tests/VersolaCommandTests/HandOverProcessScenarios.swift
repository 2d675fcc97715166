import Foundation
import Testing
import Versola
import VersolaJOSE
import VersolaTestIdP

/// P10 across the agent's process boundary when nothing else can keep the renewed record: the
/// refresh process can neither write it (a full disk) nor spill it (the spill directory is a
/// file), so its reply hands the record, sealed, to the agent, which holds it, serves from it
/// and writes it once the disk has room. And the stderr notice of a command that takes up a
/// record another process spilled.
@Suite("a renewed record handed over or taken up, end to end", .serialized)
struct HandOverProcessScenarios {
    typealias SmallDisk = FullDiskProcessScenarios.SmallDisk

    @Test(
        "P10 T2 R9: the agent holds the sealed record its refresh process could neither store nor spill, serves it, and stores it once the disk has room",
        .enabled(if: SmallDisk.canMount, "mounting the small tmpfs needs root"))
    func agentHoldsTheHandedOverRecord() async throws {
        try await FullDiskProcessScenarios.signedIn { cli, disk in
            // Nowhere to spill: the spill directory's name is taken by a file.
            let blocker = cli.agentDirectory + "/spill"
            #expect(FileManager.default.createFile(atPath: blocker, contents: Data(), attributes: [.posixPermissions: 0o600]))
            let refreshed = try await FullDiskProcessScenarios.refreshWhileTheDiskFails(
                cli, disk: disk, .full, ["token", "--force-refresh"])
            #expect(refreshed.status == 0, "the refresh answered while the disk was full: \(refreshed.stderr)")
            let status = try JSONValue(parsing: try await cli.run(["status", "--json"]).stdout)
            #expect(status["state"] == "authenticated", "\(status)")
            // Served from the record the agent holds: the same token, no other refresh.
            let before = await cli.requestCount(.token)
            let served = try await cli.run(["token"])
            #expect(served.status == 0 && served.stdout == refreshed.stdout, "the renewed token is served")
            #expect(await cli.requestCount(.token) == before)
            FullDiskProcessScenarios.Fault.full.heal(disk)
            // The next refresh spends the rotated token the agent held, never the one on disk
            // before (a reuse the provider answers by revoking the grant).
            let again = try await cli.run(["token", "--force-refresh"])
            #expect(again.status == 0, "after space returned: \(again.stderr)")
            #expect(await cli.requestCount(.token) == before + 1, "one refresh")
            #expect(await cli.idp.provider.revokedFamilyCount == 0, "no refresh token was presented twice")
            let last = try await cli.run(["token", "--force-refresh", "--no-agent"])
            #expect(last.status == 0, "the record on disk holds the live grant: \(last.stderr)")
        }
    }

    @Test(
        "P10: a command that takes up a record another process spilled stores it and says so on standard error",
        .enabled(if: SmallDisk.canMount, "mounting the small tmpfs needs root"))
    func takingUpASpillIsSaid() async throws {
        try await FullDiskProcessScenarios.signedIn { cli, disk in
            let refreshed = try await FullDiskProcessScenarios.refreshWhileTheDiskFails(
                cli, disk: disk, .full, ["token", "--force-refresh", "--no-agent"])
            #expect(refreshed.status == 0, "the refresh answered while the disk was full: \(refreshed.stderr)")
            #expect(!refreshed.stderr.contains("is now stored"))
            FullDiskProcessScenarios.Fault.full.heal(disk)
            let next = try await cli.run(["token", "--force-refresh", "--no-agent"])
            #expect(next.status == 0, "\(next.stderr)")
            #expect(next.stderr.contains("it was kept in \(cli.agentDirectory)/spill/"), "\(next.stderr)")
            #expect(next.stderr.contains("is now stored in \(cli.home.path)/state/versola/default/session"), "\(next.stderr)")
            #expect(await cli.idp.provider.revokedFamilyCount == 0, "no refresh token was presented twice")
            // Said once: the spill is gone.
            let quiet = try await cli.run(["token", "--force-refresh", "--no-agent"])
            #expect(quiet.status == 0 && !quiet.stderr.contains("is now stored"), "\(quiet.stderr)")
        }
    }
}

extension FullDiskProcessScenarios {
    /// Runs `body` with a harness whose state directory is a small tmpfs, signed in, with the
    /// agent running and holding a token.
    static func signedIn(_ body: @escaping (CLIHarness, SmallDisk) async throws -> Void) async throws {
        let cli = try await CLIHarness()
        let disk = try SmallDisk.mount(at: cli.home.path + "/state")
        try await withHarness(cli, finish: { cli in
            await cli.finish()
            disk.unmount()
        }) { cli in
            try await cli.login()
            #expect(try await cli.run(["token"]).status == 0)
            try await body(cli, disk)
        }
    }
}
