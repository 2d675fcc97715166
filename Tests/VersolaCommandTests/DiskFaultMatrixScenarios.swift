import Foundation
import Testing
import VersolaTestIdP

/// P10 and P7 across the agent's process boundary, cell by cell (issue 37 item 4): the disk
/// under the state directory fails while a forced refresh is on its way (the provider has the
/// refresh request and rotates the token), in each way a disk fails and at each point of the
/// refresh, through the agent's refresh process and through `--no-agent`. The fault comes from
/// a preloaded library (FaultShim), not from a real disk: a read-only remount cannot happen
/// while the refresh holds the profile's lock file open for writing (the kernel answers EBUSY),
/// and a small tmpfs can say ENOSPC only (FullDiskProcessScenarios does that with a real one).
/// Each cell checks that the fault struck, that the caller was served (or, killed, that it
/// died), that the next `token` after the disk healed refreshes once, and that the provider
/// saw no reused refresh token (it revokes the grant when it does).
@Suite("P10 P7: the disk fault matrix through real processes", .serialized)
struct DiskFaultMatrixScenarios {
    /// How the disk fails.
    enum Failure: String, CaseIterable, Sendable {
        case full = "ENOSPC", io = "EIO", quota = "EDQUOT", readOnly = "EROFS", rename = "rename"

        /// The calls that fail: a full disk, an I/O error and a quota refuse the data; a
        /// read-only file system refuses creating, renaming and removing; `rename` alone fails
        /// the atomic replacement (EIO).
        var calls: [String] {
            switch self {
            case .full, .io, .quota: ["write"]
            case .readOnly: ["open", "rename", "link", "unlink"]
            case .rename: ["rename"]
            }
        }

        var errno: String { self == .rename ? "EIO" : rawValue }
    }

    /// Where in the refresh the disk fails, and whether the process that refreshed dies before answering.
    enum Point: String, CaseIterable, Sendable {
        case beforeWrite = "the record's write fails"
        case afterWrite = "the record written, the next write fails"
        case killedBeforeWrite = "the record's write fails, killed before the reply"
        case killedAfterWrite = "the record written, the next write fails, killed before the reply"

        /// The file that fails: the record (`session`) before it is written, or the generation
        /// written after the record is in place.
        var file: String { self == .beforeWrite || self == .killedBeforeWrite ? "session" : "generation" }
        var kills: Bool { self == .killedBeforeWrite || self == .killedAfterWrite }
    }

    /// Who runs the refresh.
    enum Runner: String, CaseIterable, Sendable {
        case agent = "the agent's refresh process"
        case noAgent = "--no-agent"

        var arguments: [String] { self == .agent ? ["token", "--force-refresh"] : ["token", "--force-refresh", "--no-agent"] }
        /// The argument only the refreshing process has: the refresh process's `--stdio`.
        var killArgument: String { self == .agent ? "--stdio" : "--no-agent" }
    }

    /// What one cell found; `problems` is empty when it held.
    struct Cell: Sendable {
        let point: Point
        let failure: Failure
        var problems: [String] = []
    }

    /// Under scripts/tsan.sh every command of the 40 cells would run sanitized, minutes for
    /// what the plain run checks; the sanitizer's run is for races within a process.
    static var sanitized: Bool { ProcessInfo.processInfo.environment["TSAN_OPTIONS"] != nil }

    @Test(
        "P10 P7 R6: ENOSPC, EIO, EDQUOT, EROFS and a failing rename before and after the record's write, the refreshing process killed or not, lose no rotated token",
        .enabled(if: !sanitized, "the plain test run holds the matrix"), arguments: Runner.allCases)
    func matrix(_ runner: Runner) async throws {
        // blocking: the first call compiles the fault library with cc, off the task pool
        let library = try await onOwnThread { try Self.library() }
        var cells: [Cell] = []
        for point in Point.allCases {
            for failure in Failure.allCases {
                let cell = try await Self.run(runner, point, failure, library: library)
                for problem in cell.problems { Issue.record("\(runner.rawValue), \(failure.rawValue) \(point.rawValue): \(problem)") }
                cells.append(cell)
            }
        }
        let table = Self.table(runner, cells)
        print(table)
        // For the conformance report (scripts/conformance.sh prints it after the in-process matrix).
        let output = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/fault-matrix-process-\(runner == .agent ? "agent" : "no-agent").md")
        try? (table + "\n").write(to: output, atomically: true, encoding: .utf8)
    }

    static func library() throws -> String {
        switch FaultShim.library {
        case .success(let path): return path
        case .failure(let failure): throw failure
        }
    }

    /// One cell: a fresh provider and home, signed in, then the refresh the disk fails.
    static func run(_ runner: Runner, _ point: Point, _ failure: Failure, library: String) async throws -> Cell {
        let cli = try await CLIHarness()
        let shim = FaultShim(
            under: cli.home.path + "/state", name: point.file, calls: failure.calls, errno: failure.errno,
            workDirectory: cli.home.path, killArgument: point.kills ? runner.killArgument : nil)
        let environment = shim.environment(library: library, existing: cli.environment["LD_PRELOAD"])
        var cell = Cell(point: point, failure: failure)
        try await withHarness(cli) { cli in
            let login = try await cli.run(
                ["login", "--issuer", cli.idp.issuer, "--client-id", "versola-test", "--browser-command", CLIHarness.browser],
                extraEnvironment: environment)
            try #require(login.status == 0, "login failed: \(login.stderr)")
            try #require(try await cli.run(["token"], extraEnvironment: environment).status == 0)
            if runner == .agent, !FaultShim.agents(home: cli.home.path).allSatisfy(FaultShim.isLoaded(in:)) {
                cell.problems.append("the agent runs without the fault library")
            }
            let served = try await refreshWhileTheDiskFails(cli, shim, runner, environment)
            cell.problems += check(served, shim, point)
            shim.heal()
            let before = await cli.requestCount(.token)
            let next = try await cli.run(runner.arguments, extraEnvironment: environment)
            if next.status != 0 { cell.problems.append("the next token after the disk healed failed: \(next.stderr)") }
            let refreshes = await cli.requestCount(.token) - before
            if refreshes != 1 { cell.problems.append("the next token made \(refreshes) refresh requests, not 1") }
            let revoked = await cli.idp.provider.revokedFamilyCount
            if revoked != 0 { cell.problems.append("the provider saw a reused refresh token and revoked the grant") }
        }
        return cell
    }

    /// Forces a refresh; the disk fails once the provider has the refresh request (so the
    /// in-flight note was written and the rotated token is on its way): the provider itself
    /// turns the fault on before it answers. (The scenario doing it between a held request and
    /// its release raced the refresh's 30-second timeout on a loaded machine: the refresh gave
    /// up, the fault never struck.)
    static func refreshWhileTheDiskFails(
        _ cli: CLIHarness, _ shim: FaultShim, _ runner: Runner, _ environment: [String: String]
    ) async throws -> CLIHarness.Outcome {
        await cli.idp.provider.arm(TestFaultRule(.token, .createFiles(shim.strikingFiles)))
        return try await cli.run(runner.arguments, extraEnvironment: environment)
    }

    /// What the refreshing command's own outcome shows: the fault struck; a caller whose
    /// refresh ran to its end was served a token; a killed one died.
    static func check(_ served: CLIHarness.Outcome, _ shim: FaultShim, _ point: Point) -> [String] {
        var problems: [String] = []
        if shim.strikes.isEmpty {
            problems.append("the fault never struck (the refreshing command exited \(served.status): \(served.stderr))")
        }
        if point.kills {
            if !shim.killed { problems.append("the refreshing process was not killed") }
        } else if served.status != 0 || served.stdout.count < 20 {
            problems.append("no token was served while the disk failed (exit \(served.status)): \(served.stderr)")
        }
        return problems
    }

    /// The matrix as a markdown table: a row per point, a column per failure.
    static func table(_ runner: Runner, _ cells: [Cell]) -> String {
        var lines = [
            "== disk fault matrix, refreshed by \(runner.rawValue) (served or killed, then the next token refreshes once, no reused refresh token)",
            "| point | " + Failure.allCases.map(\.rawValue).joined(separator: " | ") + " |",
            "|---" + String(repeating: "|---", count: Failure.allCases.count) + "|",
        ]
        for point in Point.allCases {
            let marks = Failure.allCases.map { failure in
                cells.first { $0.point == point && $0.failure == failure }.map { $0.problems.isEmpty ? "holds" : "FAILS" } ?? "-"
            }
            lines.append("| \(point.rawValue) | " + marks.joined(separator: " | ") + " |")
        }
        let failed = cells.filter { !$0.problems.isEmpty }.count
        lines.append("\(cells.count) cells, \(failed) failed")
        return lines.joined(separator: "\n")
    }
}
