import Versola

/// The commands that sign in and use the session, each with its flags declared once.
enum LoginCommandSpecs {
    static let all: [CommandForm] = [login, token, status, userInfo, logout, unlock, request, handleRedirect, verify, agent]

    static let login = CommandForm(
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
            saved too; to change it, sign out first. One sign-in per profile runs at a time: while
            another process runs one, login waits for it (up to VERSOLA_SIGN_IN_WAIT seconds, default
            600), then signs in itself.
            """,
        options: LoginOptions(), flags: LoginFlags.all
    ) { options, _ throws(UsageError) in try LoginFlags.login(options) }

    static let unlock = CommandForm(
        .unlock, summary: "unlock a locked session: give the passphrase, or look at the keyring again",
        details: """
            For a passphrase profile, asks for the passphrase on the terminal (without echo) and hands
            it to the session agent, which keeps the profile unlocked until it exits. For a
            secret-service profile, has the agent read the keyring again (a desktop shows its unlock
            prompt). Without the agent (--no-agent) nothing stays unlocked: each command then asks
            for the passphrase, or reads it from the descriptor named by VERSOLA_PASSPHRASE_FD.
            """,
        options: UnlockOptions(), flags: [.passphraseDescriptor(into: \.passphraseDescriptor)]
    ) { options, _ in .unlock(options) }

    static let token = CommandForm(
        .token, summary: "print a valid access or ID token (raw, json, or a kubectl ExecCredential)",
        details: """
            Prints a valid access token (or with --token id the ID token), refreshing it when less
            than 2 minutes are left. --format k8s answers kubectl as its credential plugin: the
            ExecCredential is in the version KUBERNETES_EXEC_INFO asks for (v1 or v1beta1), and when
            kubectl runs it interactively and the profile needs a sign-in, the browser sign-in runs
            first (its messages on standard error); callers that need it at once share that one
            sign-in, the others waiting for it. A DPoP-bound access token is refused there:
            kubectl sends no proofs. versola setup-kubectl prints the kubeconfig user.
            """,
        options: TokenOptions(),
        flags: [
            .toggle(["--force-refresh"], help: "refresh even when the cached token is still good", sets: \.forceRefresh),
            .choice(
                ["--format"], value: "FORMAT", choices: TokenFormat.allCases.map(\.rawValue),
                help: "raw (the token alone, default), json, or k8s (an ExecCredential for kubectl)",
                refusal: "--format must be raw, json or k8s", parse: TokenFormat.init(rawValue:),
                set: { options, format in options.format = format }),
            .tokenKind(
                help: "access (the default) or id (the ID token, which kube-apiserver's OIDC authenticator validates)",
                into: \.token),
            CommandFlag(
                ["--resource"], value: "URL",
                help: "the token of the profile signed in for this API (versola login --resource URL)"
            ) { options, flag, reader throws(UsageError) in options.resource = try reader.resource(flag) },
        ]
    ) { options, _ in .token(options) }

    static let status = CommandForm(
        .status, summary: "show the session state and who is signed in (--watch follows it)",
        details: """
            Shows the session state and who is signed in; works offline. Exits 1 when the profile
            is signed out (the JSON output is the same).
            """,
        options: StatusOptions(),
        flags: [.toggle(["--watch"], help: "keep printing each state change until interrupted", sets: \.watch)]
    ) { options, _ in .status(options) }

    static let userInfo = CommandForm(
        .userInfo, summary: "print the provider's UserInfo claims",
        details: "Prints the provider's UserInfo claims for the signed-in user.", options: ()
    ) { _, _ in .userInfo }

    static let logout = CommandForm(
        .logout, summary: "sign out: revoke the refresh token and wipe everything local",
        details: "Revokes the refresh token and wipes the profile's session and DPoP key. Never fails.",
        options: LogoutOptions(),
        flags: [.toggle(["--end-session"], help: "also open the provider's end-session page in the browser", sets: \.endSession)]
    ) { options, _ in .logout(options) }

    static let request = CommandForm(
        .request, summary: "send an HTTP request with the access token (DPoP-bound when enabled)",
        arguments: "URL",
        details: """
            Sends a request with the access token (and a DPoP proof when the session is DPoP-bound)
            and prints the response body. A 401 gets one refresh and one replay.
            """,
        options: RequestOptions(url: ""),
        flags: [
            CommandFlag(["-X", "--request"], value: "METHOD", help: "the method (default GET, or POST with -d)") {
                options, flag, reader throws(UsageError) in options.method = try reader.method(flag)
            },
            CommandFlag(["-H", "--header"], value: "'Name: value'", help: "a request header (repeatable)") {
                options, flag, reader throws(UsageError) in options.headers.append(try reader.header(flag))
            },
            .text(["-d", "--data"], value: "DATA", help: "the request body; @FILE reads a file, @- standard input", into: \.data),
            .toggle(["--fail", "-f"], help: "exit 22 when the answer is HTTP 400 or above (like curl)", sets: \.fail),
        ],
        argumentNeeded: "a URL"
    ) { options, arguments in
        var options = options
        options.url = arguments[0]
        return .request(options)
    }

    static let handleRedirect = CommandForm(
        .handleRedirect, summary: "hand a redirect URL to the pending login (pasted, or from a URL handler)",
        arguments: "URL",
        details: """
            Delivers the final redirect URL of a login (pasted from the browser, or handed over by a
            URL handler) to the pending login of the profile. It is validated against the stored request.
            A re-login still waiting in versola login is handed the redirect and finishes there.
            """,
        options: (), argumentNeeded: "the redirect URL"
    ) { _, arguments in .handleRedirect(url: arguments[0]) }

    static let verify = CommandForm(
        .verify, summary: "verify a JWT as a backend would (discovery, JWKS, claims)",
        arguments: "TOKEN",
        details: """
            Verifies a JWT as a backend would: discovery of the issuer, its JWKS, the key by kid,
            the algorithm pinned to the key, and iss, exp, nbf and iat with a 60 s tolerance.
            TOKEN - reads the token from standard input. Without --issuer the profile's issuer is used.
            Without --audience a token minted for any client of the issuer passes (a warning says so).
            """,
        options: VerifyOptions(token: ""),
        flags: [
            .text(["--issuer"], value: "URL", help: "the issuer the token must come from", into: \.issuer),
            .text(["--audience"], value: "AUD", help: "require this audience", into: \.audience),
            .choice(
                ["--type"], value: "TYPE", choices: VerifiedTokenType.allCases.map(\.rawValue),
                help: "at+jwt also requires the typ of an RFC 9068 access token",
                refusal: "--type takes at+jwt (RFC 9068 access tokens)", parse: VerifiedTokenType.init(rawValue:),
                set: { options, type in options.type = type }),
            .text(["--ca-file"], value: "PATH", help: "trust this CA bundle for the issuer", into: \.caFile),
        ],
        argumentNeeded: "a token (or - to read it from standard input)"
    ) { options, arguments in
        var options = options
        options.token = arguments[0]
        return .verify(options)
    }

    static let agent = CommandForm(
        .agent, summary: "the per-user session agent (started on demand; internal)",
        details: """
            Runs the per-user session agent that keeps access tokens in memory across commands.
            Commands start it on demand; it exits after --idle-timeout seconds without a request.
            """,
        options: AgentOptions(),
        flags: [
            .number(
                ["--idle-timeout"], value: "SECONDS", help: "exit after this long without a request (default 600)", in: 1...86_400
            ) { options, seconds in options.idleTimeoutSeconds = seconds },
            .toggle(["--stop"], help: "ask a running agent to exit", sets: \.stop),
            .toggle(
                ["--stdio"], help: "answer one agent request from standard input, then exit (the agent's refresh process)",
                sets: \.stdio),
        ]
    ) { options, _ in .agent(options) }
}
