import Foundation
import Testing

@testable import VersolaCommand
import VersolaHTTP

/// Another local account for the L4 scenarios, created with `useradd` when the tests run as
/// root (a system account without home or login shell), and commands run as it with `setpriv`.
struct SecondUser: Sendable {
    static let name = "versola-l4-other"

    let uid: uid_t
    let gid: gid_t

    /// The account, created when missing.
    static func ensure() throws -> SecondUser {
        if getpwnam(name) == nil {
            let status = try run("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name])
            // Another test process may have created it at the same time.
            if status != 0 && getpwnam(name) == nil { throw CocoaError(.featureUnsupported) }
        }
        guard let entry = getpwnam(name) else { throw CocoaError(.featureUnsupported) }
        return SecondUser(uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
    }

    /// Runs `command` with `/bin/sh -c` as this user; returns its exit status.
    func run(_ command: String) throws -> Int32 {
        try Self.run("/usr/bin/setpriv", credentials + ["/bin/sh", "-c", command])
    }

    private var credentials: [String] {
        ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups"]
    }

    /// Copies the command (the front and the engine beside it, where the front looks for it) into
    /// the harness's home, which this user can enter: the build (or the installation) may sit
    /// under a directory only its owner can enter (a 0700 home, a `mktemp -d` clone).
    /// - Returns: the copied front, or nil when a directory above the harness's home is closed to
    ///   other users, so nothing there can be run as this user.
    func reachableCommand(cli: CLIHarness) throws -> String? {
        var ancestor = (cli.home.path as NSString).deletingLastPathComponent
        while ancestor != "/" && !ancestor.isEmpty {
            var info = stat()
            guard stat(ancestor, &info) == 0, info.st_mode & S_IXOTH != 0 else { return nil }
            ancestor = (ancestor as NSString).deletingLastPathComponent
        }
        let directory = cli.home.path + "/other-user-bin"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o755)
        for (source, name) in [(CLIHarness.executable, "versola-front"), (CLIHarness.engine, "versola")] {
            try FileManager.default.copyItem(atPath: source, toPath: directory + "/" + name)
            chmod(directory + "/" + name, 0o755)
        }
        return directory + "/versola-front"
    }

    /// Starts `versola agent` (`command`, a copy this user can run) as this user in a home of its
    /// own and reports whether the kernel treats it as not dumpable: its `/proc/<pid>` entries are
    /// then owned by root, not by the user (for a dumpable process they belong to the process's
    /// user). Stops it after.
    func agentIsNotDumpable(cli: CLIHarness, command: String) throws -> Bool {
        let home = cli.home.path + "/other-user"
        for path in [home, home + "/run", home + "/config", home + "/state"] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            chown(path, uid, gid)
            chmod(path, 0o700)
        }
        chmod(cli.home.path, 0o711)
        let environment = [
            "HOME=\(home)", "XDG_RUNTIME_DIR=\(home)/run", "XDG_CONFIG_HOME=\(home)/config", "XDG_STATE_HOME=\(home)/state",
            "PATH=/usr/bin:/bin",
        ]
        let arguments = ["/usr/bin/setpriv"] + credentials + [command, "agent", "--idle-timeout", "30"]
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_RDWR, 0)
        }
        _ = CloseOnExec.closeDescriptors(from: 3, in: &actions)
        var child: pid_t = 0
        guard posix_spawn(&child, arguments[0], &actions, nil, argv, envp) == 0 else { return false }
        defer {
            kill(child, SIGKILL)
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        }
        // setpriv execs the agent: the child is the agent. Wait (bounded) for its socket.
        let socket = home + "/run/versola/agent.sock"
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, LocalProcessScenarios.agentPID(socket: socket) != child {
            usleep(10_000)
        }
        guard LocalProcessScenarios.agentPID(socket: socket) == child else { return false }
        var info = stat()
        guard stat("/proc/\(child)/status", &info) == 0 else { return false }
        let statusText = (try? String(contentsOfFile: "/proc/\(child)/status", encoding: .utf8)) ?? ""
        let runsAsUser = statusText.split(separator: "\n").contains { $0.hasPrefix("Uid:\t\(uid)\t") }
        return runsAsUser && info.st_uid == 0
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Runs blocking work (`useradd`, `setpriv`, waiting for an agent to start) on a thread of its
/// own: called straight from a test, it would hold one of the few threads every task of the
/// test process (the in-process provider's included) runs on, for as long as it waits.
func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await DedicatedThread.run { Result { try body() } }.get()
}

extension SecondUser {
    /// Fetches `url` with curl as this user: curl's exit status (22 for an answer of 400 or more,
    /// 0 for one below, 28 when no answer came in 30 seconds; redirects are not followed). It
    /// waits on a thread of its own: the loopback servers answer on the task pool, and a test
    /// that held a pool thread while curl waited for them could starve them past curl's limit.
    func fetch(_ url: String) async throws -> Int32 {
        try await onOwnThread { try run("curl -s -f -o /dev/null --max-time 30 '\(url)'") }
    }
}
