/// The commands that fit `versola` into other tools and the shell, each with its flags
/// declared once.
enum ToolCommandSpecs {
    static let all: [CommandForm] = [gitCredential, setupGit, setupKubectl, profiles, completion, man]

    static let gitCredential = CommandForm(
        .gitCredential, summary: "git's credential helper: the access token for the profile's git hosts",
        arguments: "get|store|erase", argumentChoices: GitCredentialOperation.allCases.map(\.rawValue),
        details: """
            Speaks git's credential-helper protocol on standard input and output (see
            gitcredentials(7)); versola setup-git configures git to call it. get answers the access
            token as the password for the hosts added with setup-git --host, and nothing for others;
            erase makes the next get refresh the token; store is accepted and ignored. A DPoP-bound
            profile cannot serve git, which sends no proofs: sign in with versola login --no-dpop.
            """,
        options: (), argumentNeeded: "get, store or erase"
    ) { _, arguments throws(UsageError) in
        guard let operation = GitCredentialOperation(rawValue: arguments[0]) else {
            throw UsageError("'git-credential' takes get, store or erase, not '\(arguments[0])'", command: .gitCredential)
        }
        return .gitCredential(operation)
    }

    static let setupGit = CommandForm(
        .setupGit, summary: "configure git to use versola for a git host (like gh auth setup-git)",
        details: """
            Adds the host to the profile and writes credential.https://HOST.helper into the global git
            config (git config --global), so git asks versola git-credential for a token. Running it
            again changes nothing. Without --host, every host already in the profile is configured.
            """,
        options: SetupGitOptions(),
        flags: [
            .text(
                ["--host"], value: "HOST",
                help: "the git server (git.example.com, or a URL such as http://127.0.0.1:8080 on loopback)", into: \.host)
        ]
    ) { options, _ in .setupGit(options) }

    static let setupKubectl = CommandForm(
        .setupKubectl, summary: "print the kubeconfig user that asks versola for kubectl's credentials",
        details: """
            Prints a kubeconfig users: entry (YAML) whose exec plugin is this versola: kubectl runs
            versola token --format k8s for the profile and sends the token it answers. Paste it
            into the kubeconfig's users: list and name it as a context's user (kubectl config
            set-context --current --user=versola-PROFILE). Use --token id for a cluster that
            validates ID tokens (kube-apiserver's OIDC authenticator). A profile that requires
            DPoP cannot hand kubectl its access token (kubectl sends no proofs). Nothing is written.
            """,
        options: SetupKubectlOptions(),
        flags: [
            .tokenKind(help: "access (the default) or id: the token kubectl sends", into: \.token),
            .choice(
                ["--api-version"], value: "VERSION", choices: ExecCredentialVersion.allCases.map(\.shortName),
                help: "v1 (the default, kubectl 1.22 and later) or v1beta1: the exec API version",
                refusal: "--api-version must be v1 or v1beta1", parse: ExecCredentialVersion.init(named:),
                set: { options, version in options.apiVersion = version }),
        ]
    ) { options, _ in .setupKubectl(options) }

    static let profiles = CommandForm(
        .profiles, summary: "list the saved profiles with their issuer and state",
        details: "Lists every saved profile: its name, its issuer and the state of its session.", options: ()
    ) { _, _ in .profiles }

    static let completion = CommandForm(
        .completion, summary: "print a shell completion script (bash, zsh or fish)",
        arguments: "bash|zsh|fish", argumentChoices: CompletionShell.allCases.map(\.rawValue),
        details: """
            Prints the completion script for the shell. For bash: versola completion bash >
            ~/.local/share/bash-completion/completions/versola; for zsh, into a file named _versola on
            your fpath; for fish: > ~/.config/fish/completions/versola.fish.
            """,
        options: (), argumentNeeded: "a shell: bash, zsh or fish"
    ) { _, arguments throws(UsageError) in
        guard let shell = CompletionShell(rawValue: arguments[0]) else {
            throw UsageError("'completion' knows bash, zsh and fish, not '\(arguments[0])'", command: .completion)
        }
        return .completion(shell)
    }

    static let man = CommandForm(
        .man, summary: "print the manual page (roff) for man(1)",
        details: "Prints the manual page in roff: versola man > ~/.local/share/man/man1/versola.1", options: ()
    ) { _, _ in .man }
}
