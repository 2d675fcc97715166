import Dispatch
import Foundation
import VersolaHTTP

/// Runs a helper program to completion on a thread of its own (``DedicatedThread``), its
/// standard output and standard error collected: `secret-tool` for the Secret Service key
/// source, `git config` for `versola setup-git`.
///
/// ```swift
/// guard let git = ChildProcess.find("git", searchPath: environment["PATH"] ?? "/usr/bin:/bin"),
///     let outcome = await ChildProcess.run(git, arguments: ["--version"], environment: environment)
/// else { return }   // no git, or it could not be started
/// outcome.status     // 0
/// ```
package enum ChildProcess {
    /// How a run ended.
    package struct Outcome: Sendable, Hashable {
        /// The exit status (or the signal number for an uncaught signal).
        package var status: Int32
        /// Standard output.
        package var output: [UInt8]
        /// Standard error.
        package var errorOutput: [UInt8]
        /// Whether a signal ended it (``status`` is then the signal's number).
        package var signalled = false
    }

    /// The first executable file `name` in the directories of `searchPath`, a `PATH` value
    /// (directories separated by `:`; relative ones are skipped), or nil when there is none.
    package static func find(_ name: String, searchPath: String) -> URL? {
        for directory in searchPath.split(separator: ":") where directory.hasPrefix("/") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return URL(fileURLWithPath: candidate) }
        }
        return nil
    }

    /// Runs `executable` with `arguments`, feeding `input` on standard input. Nil when the
    /// program cannot be started at all.
    /// - Parameter environment: the program's environment; nil passes this process's own.
    package static func run(
        _ executable: URL, arguments: [String], input: [UInt8] = [], environment: [String: String]? = nil
    ) async -> Outcome? {
        await DedicatedThread.run { runBlocking(executable, arguments: arguments, input: input, environment: environment) }
    }

    private static func runBlocking(
        _ executable: URL, arguments: [String], input: [UInt8], environment: [String: String]?
    ) -> Outcome? {
        var attempt = 0
        while true {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            if let environment { process.environment = environment }
            let pipes = (Pipe(), Pipe(), Pipe())
            process.standardInput = pipes.0
            process.standardOutput = pipes.1
            process.standardError = pipes.2
            do {
                try process.run()
                return finish(process, pipes: pipes, input: input)
            } catch {
                // Foundation reports a failed exec without its errno. The usual cause for a
                // program that exists is ETXTBSY: it was just written (or is being replaced) and
                // a process forked meanwhile still holds it open for writing, which passes in
                // moments; so a launch is tried again a few times before it counts as failed.
                attempt += 1
                guard attempt < 20, FileManager.default.isExecutableFile(atPath: executable.path) else { return nil }
                usleep(20_000)
            }
        }
    }

    private static func finish(_ process: Process, pipes: (Pipe, Pipe, Pipe), input: [UInt8]) -> Outcome {
        let (standardInput, standardOutput, standardError) = pipes
        // Read standard error on another thread so that neither pipe can fill up and stall.
        let errorBytes = ErrorCollector()
        let group = DispatchGroup()
        group.enter()
        DedicatedThread.start {
            errorBytes.set(standardError.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
        if !input.isEmpty { try? standardInput.fileHandleForWriting.write(contentsOf: input) }
        try? standardInput.fileHandleForWriting.close()
        let output = standardOutput.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, output: Array(output), errorOutput: Array(errorBytes.get()),
            signalled: process.terminationReason == .uncaughtSignal)
    }

    /// Hands standard error from its reading thread to the caller.
    private final class ErrorCollector: @unchecked Sendable {
        // Written once before `group.leave()`, read after `group.wait()`: the group orders them.
        private var data = Data()
        func set(_ value: Data) { data = value }
        func get() -> Data { data }
    }
}
