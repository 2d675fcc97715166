import Foundation
import Versola
import VersolaHTTP

/// The second half of a `versola token` begun by the small front program (`versola-front`,
/// installed as `versola`): the front asked the agent for the printout, copies it when it came,
/// and hands every other answer (an error, a result from an agent that does not render) to this
/// engine to render, so that the words and the JSON of every answer come from one place
/// (``ErrorReport``, ``TokenOutput``).
///
/// The front writes the answer line into a memory file and `exec`s the engine with the
/// variable `VERSOLA_AGENT_REPLY_FD=<descriptor>.<process id>`; the request is never sent
/// again (R9). A value naming another process (inherited from elsewhere) is ignored.
public enum AgentReplyHandOver {
    /// The environment variable the front sets.
    public static let variable = "VERSOLA_AGENT_REPLY_FD"

    /// The descriptor holding the answer when `environment` hands one to this process.
    public static func descriptor(in environment: [String: String], processID: pid_t = getpid()) -> Int32? {
        guard let value = environment[variable] else { return nil }
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let pid = pid_t(parts[1]), pid == processID, let descriptor = Int32(parts[0]) else {
            return nil
        }
        return descriptor
    }

    /// Renders the handed-over answer for `arguments` (the same command line the front read)
    /// and returns the exit status, exactly as ``CommandRunner`` would have for that answer
    /// (for kubectl that may mean signing in first, see ``TokenCommand``). Blocks the calling
    /// thread, which must not be one of Swift's cooperative pool.
    /// - Parameters:
    ///   - line: the answer line without its newline; empty when the answer was lost.
    ///   - executable: the `versola` binary, to start the session agent with after a sign-in.
    public static func finish(
        line: [UInt8], arguments: [String], environment: [String: String], console: any Console,
        executable: String? = VersolaCommandLine.currentExecutable()
    ) -> Int32 {
        guard let invocation = VersolaCommandLine.parse(arguments, environment: environment, console: console) else {
            return ExitStatus.usage.rawValue
        }
        let global = invocation.global
        let reply = AgentReply(line: line) ?? .failure(AgentClient.lostAnswer)
        if let status = TargetCommands.finish(
            reply, CommandContext(invocation: invocation, environment: environment, console: console, executable: executable))
        {
            return status.rawValue
        }
        // The front hands over `token` and the adapters' answers only; for anything else the answer cannot be used.
        guard case .token(let options) = invocation.command else {
            let error = AgentClient.lostAnswer
            console.err(ErrorReport.render(.versola(error), json: global.json, profile: global.profile))
            return ExitStatus(error).rawValue
        }
        let context = CommandContext(invocation: invocation, environment: environment, console: console, executable: executable)
        let status = SyncBridge.wait { () async -> ExitStatus in
            do throws(CommandFailure) {
                try await TokenCommand(context: context, options: options).finish(reply)
                return .success
            } catch {
                console.err(ErrorReport.render(error, json: global.json, profile: global.profile))
                return error.exitStatus
            }
        }
        return status.rawValue
    }

    /// Reads the handed-over answer from `descriptor` (and closes it); empty when unreadable.
    public static func read(_ descriptor: Int32) -> [UInt8] {
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= UnixSocket.maximumLineLength {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }
}

extension TokenOptions {
    /// The format printed: `--format`, else `json` with `--json`, else `raw`.
    func effectiveFormat(json: Bool) -> TokenFormat { format ?? (json ? .json : .raw) }
}
