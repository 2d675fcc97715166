import Foundation
import Versola
import VersolaHTTP

/// Everything a running command needs from its surroundings, injected so that tests can run
/// commands in-process.
public struct CommandContext: Sendable {
    /// The parsed command line.
    public var invocation: Invocation
    /// The process environment (XDG directories, `BROWSER`, `NO_COLOR`, …).
    public var environment: [String: String]
    /// Standard streams.
    public var console: any Console
    /// The `versola` executable, to start the agent with; nil never starts one.
    public var executable: String?

    /// Creates a context.
    public init(invocation: Invocation, environment: [String: String], console: any Console, executable: String?) {
        self.invocation = invocation
        self.environment = environment
        self.console = console
        self.executable = executable
    }

    /// The profile worked on.
    var profile: String { invocation.global.profile }

    /// This process's XDG directories.
    func directories() throws(VersolaError) -> XDGDirectories {
        try XDGDirectories.current(environment: environment)
    }

    /// The saved profiles.
    func profileFiles() throws(VersolaError) -> ProfileFiles {
        ProfileFiles(configHome: try XDGDirectories.current(environment: environment).configHome.path)
    }

    /// The agent client, or nil with `--no-agent` or `-v`, or when no private socket directory exists.
    func agentClient() -> AgentClient? {
        guard !invocation.global.noAgent, !invocation.global.verbose, let location = AgentLocation.resolve(environment: environment) else {
            return nil
        }
        return AgentClient(location: location, executable: executable, environment: environment)
    }
}
