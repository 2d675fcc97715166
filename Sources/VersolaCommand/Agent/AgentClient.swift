import Foundation
import Versola
import VersolaHTTP

/// Talks to the session agent: connects to its socket, starting the agent on demand, sends
/// one request line and reads the reply.
public struct AgentClient: Sendable {
    /// Where the agent listens.
    public let location: AgentLocation
    /// The `versola` executable that runs `versola agent`; nil never starts one.
    public let executable: String?
    /// The environment the agent is started with.
    public let environment: [String: String]
    /// How long to wait for a freshly started agent to listen.
    public var startupTimeout: Duration = .seconds(10)

    /// Creates a client.
    public init(location: AgentLocation, executable: String?, environment: [String: String]) {
        self.location = location
        self.executable = executable
        self.environment = environment
    }

    /// Sends `request` and returns the reply; nil only when the request could not be
    /// delivered (no agent, writing to it failed, or it is larger than the agent reads,
    /// ``AgentLimits/maximumRequestBytes``), so the caller may run the command itself.
    /// Once delivered, a lost answer (the agent died or was killed meanwhile) is a `recoverable`
    /// failure, never nil: the agent may have done the work, and it must not be done twice (R9).
    /// - Parameter start: start the agent when none is listening.
    public func send(_ request: AgentRequest, start: Bool = true) -> AgentReply? {
        // Larger than the agent reads (an HTTP body for `versola request`): run here instead.
        guard request.line.count <= AgentLimits.maximumRequestBytes else { return nil }
        guard let connection = connect(start: start) else { return nil }
        defer { close(connection) }
        guard UnixSocket.write(request.line, to: connection) else { return nil }
        var pending: [UInt8] = []
        return AgentReply.read(from: connection, pending: &pending) ?? .failure(Self.lostAnswer)
    }

    /// A request delivered to the agent whose answer never came back (R9).
    static let lostAnswer = VersolaError.recoverable(
        .network(NetworkFailure(kind: .failedAfterSending, requestBytesWritten: true, origin: "the versola agent")))

    /// Sends `request` and calls `receive` for every reply line until the agent closes the
    /// stream or `receive` returns false (used by `status --watch`). False when no agent
    /// could be reached.
    public func stream(_ request: AgentRequest, receive: (AgentReply) -> Bool) -> Bool {
        guard let connection = connect(start: true) else { return false }
        defer { close(connection) }
        guard UnixSocket.write(request.line, to: connection) else { return false }
        var pending: [UInt8] = []
        while let reply = AgentReply.read(from: connection, pending: &pending), receive(reply) {}
        return true
    }

    /// A connection to a listening agent whose process runs as this user.
    func connect(start: Bool) -> Int32? {
        if let connection = attempt() { return connection }
        guard start, let executable else { return nil }
        guard AgentLauncher.launch(executable: executable, environment: environment) else { return nil }
        let deadline = ContinuousClock.now + startupTimeout
        var pause: UInt32 = 1000
        while ContinuousClock.now < deadline {
            if let connection = attempt() { return connection }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
        return nil
    }

    private func attempt() -> Int32? {
        guard let connection = try? UnixSocket.connect(to: location.socketPath) else { return nil }
        guard UnixSocket.peerUID(connection) == getuid() else {
            close(connection)
            return nil
        }
        return connection
    }
}

/// Starts `versola agent` detached from the calling command: its own session (`setsid`, so
/// no controlling terminal and no signals from the shell's job control), standard streams
/// on `/dev/null`, not waited for (it is re-parented when the command exits). The agent then
/// closes any other descriptor it inherited, moves to `/` and turns core dumps off
/// (``AgentProcessHygiene``, run by ``CommandRunner/runAgent(_:context:)``).
enum AgentLauncher {
    /// glibc's `POSIX_SPAWN_SETSID` (spawn.h; not imported into Swift).
    private static let spawnSetSID: Int16 = 0x80

    /// Spawns the agent; false when it could not be started.
    static func launch(executable: String, environment caller: [String: String]) -> Bool {
        let environment = AgentLaunchEnvironment.forAgent(caller)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        sigaddset(&defaultSignals, SIGPIPE)
        sigaddset(&defaultSignals, SIGINT)
        sigaddset(&defaultSignals, SIGHUP)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(
            &attributes, spawnSetSID | Int16(POSIX_SPAWN_SETSIGDEF) | Int16(POSIX_SPAWN_SETSIGMASK))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        // The agent outlives its caller: it must hold none of the caller's descriptors.
        guard CloseOnExec.closeDescriptors(from: 3, in: &actions) else { return false }
        var arguments = [executable, "agent"]
        if let idle = environment["VERSOLA_AGENT_IDLE_TIMEOUT"], Int(idle) != nil {
            arguments += ["--idle-timeout", idle]
        }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        return posix_spawn(&child, executable, &actions, &attributes, argv, envp) == 0
    }
}
