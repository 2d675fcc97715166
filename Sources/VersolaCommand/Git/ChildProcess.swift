import Foundation

/// Runs a program found on `PATH` and waits for it, its standard input and output on
/// `/dev/null` and its standard error shared with ours.
enum ChildProcess {
    /// The status returned when the program could not be started.
    static let notStarted: Int32 = 127

    /// Runs `program` with `arguments` in `environment`; returns its exit status.
    static func run(_ program: String, _ arguments: [String], environment: [String: String]) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // Find the program on the given PATH (posix_spawnp would use this process's).
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        let candidates = path.split(separator: ":").map { String($0) + "/" + program }
        guard let executable = candidates.first(where: { access($0, X_OK) == 0 }) else { return notStarted }
        var child: pid_t = 0
        guard posix_spawn(&child, executable, &actions, nil, argv, envp) == 0 else { return notStarted }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
