/// One parsed `versola` command line: what to do, apart from doing it.
///
/// ```swift
/// let invocation = try CommandParser.parse(["token", "--format", "k8s"], environment: [:])
/// // invocation.command == .token(TokenOptions(format: .k8s))
/// ```
public enum Command: Sendable, Hashable {
    /// `versola login`: sign in through the browser and save the profile.
    case login(LoginOptions)
    /// `versola token`: print a valid access token.
    case token(TokenOptions)
    /// `versola status`: show the session state (optionally following it).
    case status(StatusOptions)
    /// `versola userinfo`: print the UserInfo claims.
    case userInfo
    /// `versola logout`: sign out, wiping everything local.
    case logout(LogoutOptions)
    /// `versola unlock`: hand the agent the passphrase, or have it look at the keyring again (S10).
    case unlock(UnlockOptions)
    /// `versola request`: send an HTTP request with the access token (and DPoP proof).
    case request(RequestOptions)
    /// `versola handle-redirect URL`: deliver a pasted or handed-over redirect (L2).
    case handleRedirect(url: String)
    /// `versola verify TOKEN`: verify a JWT as a backend would.
    case verify(VerifyOptions)
    /// `versola agent`: run (or stop) the per-user session agent (P4, T2).
    case agent(AgentOptions)
    /// `versola git-credential get|store|erase`: git's credential-helper protocol.
    case gitCredential(GitCredentialOperation)
    /// `versola setup-git [--host H]`: point git's credential helper at versola.
    case setupGit(SetupGitOptions)
    /// `versola setup-kubectl`: print the kubeconfig user that runs versola for kubectl.
    case setupKubectl(SetupKubectlOptions)
    /// `versola setup-docker --host H`: serve a docker registry from the profile.
    case setupDocker(SetupDockerOptions)
    /// `versola setup-pip --url U`: serve a Python package index from the profile.
    case setupPip(SetupPipOptions)
    /// `versola setup-cargo --registry N --index U`: serve a cargo registry from the profile.
    case setupCargo(SetupCargoOptions)
    /// `docker-credential-versola get|store|erase|list` (`versola docker-credential`).
    case dockerCredential(DockerCredentialOperation)
    /// `versola credential --url U`: the credential for a URL, as JSON (the keyring backend's).
    case credential(CredentialOptions)
    /// `versola cargo-credential --cargo-plugin`: cargo's credential-provider protocol.
    case cargoCredential(CargoCredentialOptions)
    /// `versola profiles`: list the saved profiles.
    case profiles
    /// `versola completion bash|zsh|fish`: print a completion script.
    case completion(CompletionShell)
    /// `versola man`: print the manual page.
    case man
    /// `--help`: print the help of a command, or the overview when `nil`.
    case help(CommandName?)
    /// `--version`: print the version.
    case version
}

/// The command names, as typed.
public enum CommandName: String, Sendable, Hashable, CaseIterable {
    /// `login`.
    case login
    /// `token`.
    case token
    /// `status`.
    case status
    /// `userinfo`.
    case userInfo = "userinfo"
    /// `logout`.
    case logout
    /// `unlock`.
    case unlock
    /// `request`.
    case request
    /// `handle-redirect`.
    case handleRedirect = "handle-redirect"
    /// `verify`.
    case verify
    /// `agent`.
    case agent
    /// `git-credential`.
    case gitCredential = "git-credential"
    /// `setup-git`.
    case setupGit = "setup-git"
    /// `setup-kubectl`.
    case setupKubectl = "setup-kubectl"
    /// `setup-docker`.
    case setupDocker = "setup-docker"
    /// `setup-pip`.
    case setupPip = "setup-pip"
    /// `setup-cargo`.
    case setupCargo = "setup-cargo"
    /// `docker-credential` (also run as `docker-credential-versola`).
    case dockerCredential = "docker-credential"
    /// `credential`.
    case credential
    /// `cargo-credential`.
    case cargoCredential = "cargo-credential"
    /// `profiles`.
    case profiles
    /// `completion`.
    case completion
    /// `man`.
    case man
}

/// Options every command accepts.
public struct GlobalOptions: Sendable, Hashable {
    /// Write results and errors as JSON (`--json`, accepted anywhere).
    public var json: Bool
    /// The profile the command works on (`--profile`, else `VERSOLA_PROFILE`, else `default`).
    public var profile: String
    /// Run in this process instead of through the session agent (`--no-agent` or
    /// `VERSOLA_NO_AGENT=1`).
    public var noAgent: Bool
    /// Use colour on a terminal (off with `NO_COLOR` set to anything non-empty).
    public var color: Bool
    /// Show each HTTP exchange on standard error, secrets left out (`-v`, `--verbose`). The
    /// command then does its work itself, as with `--no-agent`, so that its exchanges are here.
    public var verbose: Bool
    /// Whether the profile was named (`--profile` or `VERSOLA_PROFILE`), not the default.
    public var profileGiven = false
    /// The profiles a `request URL` may be for, longest resource first (A19): the first that
    /// exists is used, when no profile was named.
    public var resourceProfiles: [String] = []

    /// The defaults: text output, profile `default`, agent on, colour on, quiet.
    public init(
        json: Bool = false, profile: String = "default", noAgent: Bool = false, color: Bool = true, verbose: Bool = false
    ) {
        self.json = json
        self.profile = profile
        self.noAgent = noAgent
        self.color = color
        self.verbose = verbose
    }
}

/// A parsed command line: the command and the global options.
public struct Invocation: Sendable, Hashable {
    /// What to do.
    public var command: Command
    /// How to do it.
    public var global: GlobalOptions

    /// Creates an invocation.
    public init(command: Command, global: GlobalOptions = GlobalOptions()) {
        self.command = command
        self.global = global
    }
}
