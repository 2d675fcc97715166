import CVersolaSystem
import Foundation

/// What the session agent does to itself before it serves anyone: it holds live access and
/// refresh tokens in memory for hours, so it must not keep what its first caller handed it,
/// nor leave its memory where another process could read it.
///
/// - Descriptors: every descriptor above standard error that was inherited (it survived
///   `exec`, so it has no close-on-exec flag) is closed: a pipe the caller reads to its end
///   no longer waits for the agent's idle timeout, and no caller's file stays open.
/// - Standard streams: once the socket is bound, standard input, output and error are
///   `/dev/null` (the caller's terminal or pipe is let go).
/// - Working directory: `/`, so no mount stays busy and no core file lands in the caller's directory.
/// - Core dumps: `RLIMIT_CORE` 0 (soft and hard) and `PR_SET_DUMPABLE` 0: a crash writes no
///   tokens to disk, and other processes of the user cannot attach or read `/proc/<pid>/mem`.
/// - Memory: nothing is `mlock`ed (the agent cannot bound what it would have to lock).
enum AgentProcessHygiene {
    /// The steps that must precede the server's own descriptors (socket, lock file).
    /// - Returns: a sentence per step that failed (empty when all held); the agent still runs.
    static func prepare() -> [String] {
        var problems: [String] = []
        closeInheritedDescriptors()
        if chdir("/") != 0 { problems.append("cannot change directory to /: \(String(cString: strerror(errno)))") }
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        if setrlimit(Int32(RLIMIT_CORE.rawValue), &noCore) != 0 {
            problems.append("cannot turn core dumps off: \(String(cString: strerror(errno)))")
        }
        if versola_set_dumpable(0) != 0 {
            problems.append("cannot mark the process not dumpable: \(String(cString: strerror(errno)))")
        }
        return problems
    }

    /// Points standard input, output and error at `/dev/null` (after startup errors could be shown).
    static func detachStandardStreams() {
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { return }
        for descriptor: Int32 in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where descriptor != null {
            _ = dup2(null, descriptor)
        }
        if null > STDERR_FILENO { close(null) }
    }

    /// Closes every descriptor above 2 without close-on-exec: those came from whoever started
    /// this process. Descriptors this process opened itself (the runtime's, all opened with
    /// close-on-exec) are left alone.
    static func closeInheritedDescriptors() {
        for descriptor in openDescriptors() where descriptor > STDERR_FILENO {
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0, flags & FD_CLOEXEC == 0 { close(descriptor) }
        }
    }

    /// The open descriptors, from `/proc/self/fd` (read completely before any is closed).
    static func openDescriptors() -> [Int32] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        return names.compactMap { Int32($0) }.sorted()
    }
}
