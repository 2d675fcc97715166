import Foundation
import Testing
import VersolaTesting

/// The preloadable fault library (`scripts/support/fault-shim.c`), compiled once per test run
/// with the system's C compiler, and one armed configuration of it: which calls fail on which
/// paths with which error, and which process dies before it answers. Everything goes through
/// the environment, which the agent hands to its refresh process, and switch files the test
/// creates and removes (the disk fails and heals while the processes run).
struct FaultShim: Sendable {
    /// The compiled library, or why there is none.
    static let library: Result<String, CompileFailure> = compile()

    struct CompileFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// The directory whose files fail.
    let under: String
    /// Only files whose name contains this text fail.
    let name: String
    /// The calls that fail (`write`, `open`, `rename`, `link`, `unlink`, `fsync`).
    let calls: [String]
    /// The errno's name.
    let errno: String
    /// Where the switches and the strike log live.
    let workDirectory: String
    /// The process argument naming the process that dies before it answers, if any.
    let killArgument: String?

    var switchPath: String { workDirectory + "/fault-on" }
    var killSwitchPath: String { workDirectory + "/kill-on" }
    var logPath: String { workDirectory + "/fault-log" }

    /// The variables for every command of the scenario (`existing` is the harness's own
    /// LD_PRELOAD, the thread sanitizer's shim under scripts/tsan.sh, kept after this one).
    func environment(library: String, existing: String?) -> [String: String] {
        var variables = [
            "LD_PRELOAD": [library, existing].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":"),
            "VERSOLA_FAULT_UNDER": under, "VERSOLA_FAULT_NAME": name, "VERSOLA_FAULT_CALLS": calls.joined(separator: ","),
            "VERSOLA_FAULT_ERRNO": errno, "VERSOLA_FAULT_SWITCH": switchPath, "VERSOLA_FAULT_LOG": logPath,
        ]
        if let killArgument {
            variables["VERSOLA_FAULT_KILL_ARG"] = killArgument
            variables["VERSOLA_FAULT_KILL_SWITCH"] = killSwitchPath
        }
        return variables
    }

    /// The files whose presence makes the disk fail (and, with a kill argument, that process
    /// die before answering): the provider creates them when the refresh request arrives.
    var strikingFiles: [String] { [switchPath] + (killArgument != nil ? [killSwitchPath] : []) }

    /// The disk is well again.
    func heal() {
        unlink(switchPath)
        unlink(killSwitchPath)
    }

    /// Whether the process meant to die did (the library removes the kill switch as it kills).
    var killed: Bool { killArgument != nil && !FileManager.default.fileExists(atPath: killSwitchPath) }

    /// The calls that failed so far, one line each: the call, the errno's number and the file's name.
    var strikes: [String] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// Whether the process `pid` has the library loaded.
    static func isLoaded(in pid: pid_t) -> Bool {
        guard case .success(let library) = library,
            let maps = FileManager.default.contents(atPath: "/proc/\(pid)/maps")
        else { return false }
        return String(decoding: maps, as: UTF8.self).contains(library)
    }

    /// The ids of the running `versola agent` processes whose environment has `HOME=home`.
    static func agents(home: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { pid in
            guard let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
                let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ")
            else { return false }
            let arguments = command.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            let variables = environment.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return arguments.dropFirst() == ["agent"] && variables.contains("HOME=" + home)
        }
    }

    private static func compile() -> Result<String, CompileFailure> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let source = root.appendingPathComponent("scripts/support/fault-shim.c").path
        guard let directory = try? TemporaryDirectory() else {
            return .failure(CompileFailure(description: "no temporary directory for the fault library"))
        }
        let output = directory.path + "/fault-shim.so"
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compiler.arguments = ["cc", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-o", output, source, "-ldl"]
        do {
            try compiler.run()
            compiler.waitUntilExit()
        } catch {
            return .failure(CompileFailure(description: "cc did not run: \(error)"))
        }
        guard compiler.terminationStatus == 0 else {
            return .failure(CompileFailure(description: "cc could not build \(source) (exit \(compiler.terminationStatus))"))
        }
        // The directory is kept for the whole run: every scenario's processes load the library.
        _ = Unmanaged.passRetained(directory)
        return .success(output)
    }
}
