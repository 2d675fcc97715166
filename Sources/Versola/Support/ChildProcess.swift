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
            var code: Int32 = 0
            if let child = launch(executable.path, arguments: arguments, environment: environment, failure: &code) {
                return child.finish(input: input)
            } else {
                // The usual cause for a program that exists and cannot start is ETXTBSY: it was
                // just written (or is being replaced) and a process forked meanwhile still holds
                // it open for writing, which passes in moments; so it is tried a few more times.
                attempt += 1
                guard code == ETXTBSY, attempt < 20 else { return nil }
                usleep(20_000)
            }
        }
    }

    /// A started program: its id and this process's ends of its three pipes.
    fileprivate struct Started {
        let pid: pid_t
        let input: Int32
        let output: Int32
        let errorOutput: Int32
    }

    /// Starts the program with pipes for its standard streams, nothing else of this process
    /// inherited, no signal blocked and SIGPIPE at its default; nil with `failure` set to the
    /// `errno` when it cannot start.
    private static func launch(_ path: String, arguments: [String], environment: [String: String]?, failure: inout Int32)
        -> Started?
    {
        failure = EMFILE
        guard let input = CloseOnExec.pipe() else { return nil }
        guard let output = CloseOnExec.pipe() else {
            closeAll([input.read, input.write])
            return nil
        }
        guard let errorOutput = CloseOnExec.pipe() else {
            closeAll([input.read, input.write, output.read, output.write])
            return nil
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input.read, 0)
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, errorOutput.write, 2)
        _ = CloseOnExec.closeDescriptors(from: 3, in: &actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        closeAll([input.read, output.write, errorOutput.write])
        guard spawned == 0 else {
            closeAll([input.write, output.read, errorOutput.read])
            failure = spawned
            return nil
        }
        return Started(pid: pid, input: input.write, output: output.read, errorOutput: errorOutput.read)
    }

    private static func closeAll(_ descriptors: [Int32]) {
        for descriptor in descriptors { close(descriptor) }
    }
}

extension ChildProcess.Started {
    /// Feeds `input`, collects both outputs until the program closes them (one poll loop, so
    /// no pipe fills up and stalls it), then waits for its exit.
    /// Writes to a pipe whose reader may have gone: with SIGPIPE blocked on this thread, so a
    /// child that exits without reading its input gives EPIPE here instead of a signal that
    /// ends the whole process (a library does not change the process's signal dispositions);
    /// a SIGPIPE left pending by the write is taken back before unblocking.
    static func writeWithoutSignal(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> Int {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let failure = errno
        if count < 0 && failure == EPIPE && sigismember(&previous, SIGPIPE) == 0 {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 {
                var zero = timespec(tv_sec: 0, tv_nsec: 0)
                _ = sigtimedwait(&pipeSignal, nil, &zero)
            }
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        errno = failure
        return count
    }

    func finish(input bytes: [UInt8]) -> ChildProcess.Outcome {
        _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
        var collected: [Int32: [UInt8]] = [output: [], errorOutput: []]
        var open: Set<Int32> = [output, errorOutput]
        var writing = bytes.isEmpty ? -1 : input
        var written = 0
        if writing < 0 { close(input) }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !open.isEmpty || writing >= 0 {
            var descriptors = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if writing >= 0 { descriptors.append(pollfd(fd: writing, events: Int16(POLLOUT), revents: 0)) }
            guard poll(&descriptors, nfds_t(descriptors.count), -1) >= 0 || errno == EINTR else { break }
            for descriptor in descriptors where descriptor.revents != 0 {
                if descriptor.fd == writing {
                    let count = Self.writeWithoutSignal(writing, bytes[written...])
                    if count > 0 { written += count }
                    if count < 0 && errno != EAGAIN && errno != EINTR || written == bytes.count {
                        close(writing)
                        writing = -1
                    }
                    continue
                }
                let count = buffer.withUnsafeMutableBytes { read(descriptor.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    collected[descriptor.fd]?.append(contentsOf: buffer[0..<count])
                } else if count == 0 || errno != EINTR && errno != EAGAIN {
                    close(descriptor.fd)
                    open.remove(descriptor.fd)
                }
            }
        }
        for descriptor in open { close(descriptor) }
        if writing >= 0 { close(writing) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return ChildProcess.Outcome(
            status: signal == 0 ? (status >> 8) & 0xff : signal, output: collected[output] ?? [],
            errorOutput: collected[errorOutput] ?? [], signalled: signal != 0)
    }
}
