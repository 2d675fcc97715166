import Versola

/// The table entries of the commands that sign in and use the session.
enum LoginCommandSpecs {
    static let all: [CommandSpec] = [login, token, status, userInfo, logout, unlock, request, handleRedirect, verify, agent]

    static let login = CommandSpec(
        .login, summary: "sign in through the browser (or with a code on another device) and save the profile",
        details: """
            Signs in through the browser with a loopback redirect and saves issuer, client id and
            options in the profile, so later commands need only --profile. A first login needs both
            --issuer and --client-id. Where no browser can be started (over SSH, on a console) and
            the provider offers it, it signs in with a code to enter on any other device instead,
            as --device does; --no-browser keeps the browser flow and waits for a pasted redirect.
            --key-source says where the key sealing the session lives: a
            file only you can read (the default), the desktop keyring (secret-service, through
            secret-tool), or a passphrase asked on the terminal (the first login sets it). It is
            saved too; to change it, sign out first.
            """,
        flags: [
            FlagSpec(["--issuer"], value: "URL", help: "the provider's issuer (https, or http on loopback)"),
            FlagSpec(["--client-id"], value: "ID", help: "the public client's id"),
            FlagSpec(
                ["--scope"], value: "S",
                help: "scope to request, sent exactly as given (repeatable; default: openid and offline_access where the provider takes them)"),
            FlagSpec(
                ["--client-secret-file"], value: "PATH",
                help: "read the client secret of an installed or desktop app (Google, Dex) from this file; saved in the profile"),
            FlagSpec(["--client-secret-fd"], value: "N", help: "read the client secret from file descriptor N instead"),
            FlagSpec(
                ["--auth-param"], value: "NAME=VALUE",
                help: "an extra authorization parameter, such as access_type=offline or audience=URL (repeatable; saved)"),
            FlagSpec(
                ["--resource"], value: "URL",
                help: "sign in for this API: its metadata names the authorization server, versola registers where it must, and the tokens are bound to it (the profile is named after the URL)"),
            FlagSpec(
                ["--endpoint"], value: "NAME=URL",
                help: "use this endpoint instead of the provider's metadata: authorization, token, device, userinfo, revocation, end-session or jwks (repeatable; saved)"),
            FlagSpec(
                ["--dpop"],
                help: "DPoP-bound tokens: auto (the default: when the provider advertises ES256), require, or off; alone: require"),
            FlagSpec(["--no-dpop"], help: "plain Bearer tokens, the same as --dpop off (needed for git and other tools that send no proofs)"),
            FlagSpec(
                ["--browser-command"], value: "CMD",
                help: "the browser command, split into words (no shell); %s is the URL (default: $BROWSER, xdg-open)"),
            FlagSpec(
                ["--no-browser"],
                help: "only print the URL; paste the final redirect URL on stdin (with stdin closed, it waits for a browser on this machine)"),
            FlagSpec(
                ["--device"],
                help: "show a code and a page to open on any other device, and wait for the approval (RFC 8628)"),
            FlagSpec(["--port"], value: "N", help: "a fixed loopback port for providers that match it exactly"),
            FlagSpec(["--redirect-path"], value: "PATH", help: "the redirect path (default /callback)"),
            FlagSpec(
                ["--redirect-scheme"], value: "URI",
                help: "sign in through a private-use scheme such as com.example.app:/callback (RFC 8252 §7.1) instead of a loopback port; registers versola handle-redirect for it (\"\" goes back to loopback)"),
            FlagSpec(["--ca-file"], value: "PATH", help: "trust this CA bundle for the provider"),
            FlagSpec(["--acr-values"], value: "V", help: "requested authentication context classes (space-separated)"),
            FlagSpec(["--max-age"], value: "N", help: "maximum authentication age in seconds"),
            FlagSpec(["--login-hint"], value: "HINT", help: "who is signing in, passed to the provider"),
            FlagSpec(
                ["--prompt"], value: "P", choices: ["login", "consent", "select_account", "none"],
                help: "ask the provider to prompt: login, consent, select_account or none"),
            FlagSpec(
                ["--key-source"], value: "SOURCE", choices: KeySourceKind.allCases.map(\.rawValue),
                help: "where the session's key lives: file (the default), secret-service (the desktop keyring) or passphrase"),
            passphraseDescriptor,
        ])

    /// `--passphrase-fd N`, shared by login and unlock.
    static let passphraseDescriptor = FlagSpec(
        ["--passphrase-fd"], value: "N",
        help: "read the passphrase from file descriptor N (a file whole, else one line) instead of the terminal; also VERSOLA_PASSPHRASE_FD")

    static let unlock = CommandSpec(
        .unlock, summary: "unlock a locked session: give the passphrase, or look at the keyring again",
        details: """
            For a passphrase profile, asks for the passphrase on the terminal (without echo) and hands
            it to the session agent, which keeps the profile unlocked until it exits. For a
            secret-service profile, has the agent read the keyring again (a desktop shows its unlock
            prompt). Without the agent (--no-agent) nothing stays unlocked: each command then asks
            for the passphrase, or reads it from the descriptor named by VERSOLA_PASSPHRASE_FD.
            """,
        flags: [passphraseDescriptor])

    static let token = CommandSpec(
        .token, summary: "print a valid access or ID token (raw, json, or a kubectl ExecCredential)",
        details: """
            Prints a valid access token (or with --token id the ID token), refreshing it when less
            than 2 minutes are left. --format k8s answers kubectl as its credential plugin: the
            ExecCredential is in the version KUBERNETES_EXEC_INFO asks for (v1 or v1beta1), and when
            kubectl runs it interactively and the profile needs a sign-in, the browser sign-in runs
            first (its messages on standard error). A DPoP-bound access token is refused there:
            kubectl sends no proofs. versola setup-kubectl prints the kubeconfig user.
            """,
        flags: [
            FlagSpec(["--force-refresh"], help: "refresh even when the cached token is still good"),
            FlagSpec(
                ["--format"], value: "FORMAT", choices: TokenFormat.allCases.map(\.rawValue),
                help: "raw (the token alone, default), json, or k8s (an ExecCredential for kubectl)"),
            FlagSpec(
                ["--token"], value: "KIND", choices: TokenKind.allCases.map(\.rawValue),
                help: "access (the default) or id (the ID token, which kube-apiserver's OIDC authenticator validates)"),
            FlagSpec(["--resource"], value: "URL", help: "the token of the profile signed in for this API (versola login --resource URL)"),
        ])

    static let status = CommandSpec(
        .status, summary: "show the session state and who is signed in (--watch follows it)",
        details: """
            Shows the session state and who is signed in; works offline. Exits 1 when the profile
            is signed out (the JSON output is the same).
            """,
        flags: [FlagSpec(["--watch"], help: "keep printing each state change until interrupted")])

    static let userInfo = CommandSpec(
        .userInfo, summary: "print the provider's UserInfo claims",
        details: "Prints the provider's UserInfo claims for the signed-in user.")

    static let logout = CommandSpec(
        .logout, summary: "sign out: revoke the refresh token and wipe everything local",
        details: "Revokes the refresh token and wipes the profile's session and DPoP key. Never fails.",
        flags: [FlagSpec(["--end-session"], help: "also open the provider's end-session page in the browser")])

    static let request = CommandSpec(
        .request, summary: "send an HTTP request with the access token (DPoP-bound when enabled)",
        arguments: "URL",
        details: """
            Sends a request with the access token (and a DPoP proof when the session is DPoP-bound)
            and prints the response body. A 401 gets one refresh and one replay.
            """,
        flags: [
            FlagSpec(["-X", "--request"], value: "METHOD", help: "the method (default GET, or POST with -d)"),
            FlagSpec(["-H", "--header"], value: "'Name: value'", help: "a request header (repeatable)"),
            FlagSpec(["-d", "--data"], value: "DATA", help: "the request body; @FILE reads a file, @- standard input"),
            FlagSpec(["--fail", "-f"], help: "exit 22 when the answer is HTTP 400 or above (like curl)"),
        ])

    static let handleRedirect = CommandSpec(
        .handleRedirect, summary: "hand a redirect URL to the pending login (pasted, or from a URL handler)",
        arguments: "URL",
        details: """
            Delivers the final redirect URL of a login (pasted from the browser, or handed over by a
            URL handler) to the pending login of the profile. It is validated against the stored request.
            A re-login still waiting in versola login is handed the redirect and finishes there.
            """)

    static let verify = CommandSpec(
        .verify, summary: "verify a JWT as a backend would (discovery, JWKS, claims)",
        arguments: "TOKEN",
        details: """
            Verifies a JWT as a backend would: discovery of the issuer, its JWKS, the key by kid,
            the algorithm pinned to the key, and iss, exp, nbf and iat with a 60 s tolerance.
            TOKEN - reads the token from standard input. Without --issuer the profile's issuer is used.
            Without --audience a token minted for any client of the issuer passes (a warning says so).
            """,
        flags: [
            FlagSpec(["--issuer"], value: "URL", help: "the issuer the token must come from"),
            FlagSpec(["--audience"], value: "AUD", help: "require this audience"),
            FlagSpec(
                ["--type"], value: "TYPE", choices: VerifiedTokenType.allCases.map(\.rawValue),
                help: "at+jwt also requires the typ of an RFC 9068 access token"),
            FlagSpec(["--ca-file"], value: "PATH", help: "trust this CA bundle for the issuer"),
        ])

    static let agent = CommandSpec(
        .agent, summary: "the per-user session agent (started on demand; internal)",
        details: """
            Runs the per-user session agent that keeps access tokens in memory across commands.
            Commands start it on demand; it exits after --idle-timeout seconds without a request.
            """,
        flags: [
            FlagSpec(["--idle-timeout"], value: "SECONDS", help: "exit after this long without a request (default 600)"),
            FlagSpec(["--stop"], help: "ask a running agent to exit"),
        ])
}
