import CVersolaSystem
import Glibc

/// Descriptors that no child process inherits, made so atomically.
///
/// A descriptor without close-on-exec lives on in every program started while it is open: a
/// browser `login` opens, a helper such as `secret-tool`, an agent. A socket held that way is
/// not closed when this process closes it, so its peer waits for an end that never comes (a
/// connection the server meant to close stays open as long as the child runs). Marking it
/// with `fcntl` after the fact leaves a window in which another thread's spawn copies it.
package enum CloseOnExec {
    /// `accept(2)`, with the new connection close-on-exec from its first instant. -1 with
    /// `errno` set on failure.
    package static func accept(
        _ listener: Int32, _ address: UnsafeMutablePointer<sockaddr>? = nil, _ length: UnsafeMutablePointer<socklen_t>? = nil
    ) -> Int32 {
        versola_accept_close_on_exec(listener, address, length)
    }

    /// A pipe whose two ends are close-on-exec: (read, write), or nil with `errno` set.
    package static func pipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard versola_pipe_close_on_exec(&ends) == 0 else { return nil }
        return (ends[0], ends[1])
    }

    /// Makes a spawn close every descriptor from `lowest` up in the child, whether or not it is
    /// close-on-exec (those opened by libraries that do not mark theirs). False on failure.
    package static func closeDescriptors(from lowest: Int32, in actions: inout posix_spawn_file_actions_t) -> Bool {
        versola_spawn_close_from(&actions, lowest) == 0
    }
}
