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
        // A19: `request URL` without a named profile uses the first saved profile of the URL's
        // resource, found once here rather than on every use of `profile`, and only one whose
        // saved resource covers the URL (same origin, a whole-segment path prefix).
        let candidates = invocation.global.resourceProfiles
        if !candidates.isEmpty, let url = Self.resourceURL(of: invocation.command), let files = try? profileFiles(),
            let found = candidates.first(where: { ResourceProfile.serves((try? files.load($0))?.resource, url: url) })
        {
            self.invocation.global.profile = found
        }
    }

    /// The URL whose resource profile a command looks for (A19): `request URL`, `token --resource URL`.
    private static func resourceURL(of command: Command) -> String? {
        switch command {
        case .request(let options): options.url
        case .token(let options): options.resource
        default: nil
        }
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

    /// The host a command runs requests in when no agent serves it; with `askingPassphrase`, a
    /// passphrase profile asks for its passphrase (``passphraseSupplier()``) when its key is
    /// needed, since nothing else unlocks it here.
    func inProcessHost(askingPassphrase: Bool) -> SessionHost {
        SessionHost(environment: environment, passphrase: askingPassphrase ? passphraseSupplier() : nil)
    }

    /// Reads a passphrase profile's passphrase from `VERSOLA_PASSPHRASE_FD` or the terminal,
    /// saying on standard error why it could not (nothing is said when there is neither: the
    /// profile then stays locked and the error says how to unlock it).
    func passphraseSupplier() -> ProfileStorage.PassphraseSupplier {
        let descriptor = PassphraseInput.descriptor(flag: nil, environment: environment)
        let console = self.console
        let json = invocation.global.json
        return { profile, isNew in
            do throws(VersolaError) {
                return try await PassphraseInput.read(profile: profile, isNew: isNew, descriptor: descriptor)
            } catch {
                if descriptor != nil || PassphraseInput.hasTerminal {
                    console.err(ErrorReport.render(.versola(error), json: json, profile: profile))
                }
                return nil
            }
        }
    }

    /// The agent client, or nil with `--no-agent` or `-v`, or when no private socket directory exists.
    func agentClient() -> AgentClient? {
        guard !invocation.global.noAgent, !invocation.global.verbose, let location = AgentLocation.resolve(environment: environment) else {
            return nil
        }
        return AgentClient(location: location, executable: executable, environment: environment)
    }
}
