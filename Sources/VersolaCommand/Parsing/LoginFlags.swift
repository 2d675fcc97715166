import Versola

/// The flags of `versola login`, each declared once with where its value lands.
enum LoginFlags {
    static let all: [CommandFlag<LoginOptions>] = provider + browser + request + [.passphraseDescriptor(into: \.passphraseDescriptor)]

    /// Who to sign in with, and how the client is known to it.
    private static let provider: [CommandFlag<LoginOptions>] = [
        .text(["--issuer"], value: "URL", help: "the provider's issuer (https, or http on loopback)", into: \.issuer),
        .text(["--client-id"], value: "ID", help: "the public client's id", into: \.clientID),
        .words(
            ["--scope"], value: "S",
            help: "scope to request, sent exactly as given (repeatable; default: openid and offline_access where the provider takes them)",
            into: \.scopes),
        .text(
            ["--client-secret-file"], value: "PATH",
            help: "read the client secret of an installed or desktop app (Google, Dex) from this file; saved in the profile",
            into: \.clientSecretFile),
        .descriptor(
            ["--client-secret-fd"], help: "read the client secret from file descriptor N instead", into: \.clientSecretDescriptor),
        CommandFlag(
            ["--auth-param"], value: "NAME=VALUE",
            help: "an extra authorization parameter, such as access_type=offline or audience=URL (repeatable; saved)"
        ) { options, flag, reader throws(UsageError) in
            let (key, value) = try reader.authorizationParameter(flag)
            options.authorizationParameters[key] = value
        },
        CommandFlag(
            ["--resource"], value: "URL",
            help: "sign in for this API: its metadata names the authorization server, versola registers where it must, and the tokens are bound to it (the profile is named after the URL)"
        ) { options, flag, reader throws(UsageError) in options.resource = try reader.resource(flag) },
        .text(
            ["--client-metadata-url"], value: "URL",
            help: "with --resource: the URL of this app's client ID metadata document, its client id where the authorization server takes those (else versola registers)",
            into: \.clientMetadataURL),
        CommandFlag(
            ["--endpoint"], value: "NAME=URL",
            help: "use this endpoint instead of the provider's metadata: authorization, token, device, userinfo, revocation, end-session or jwks (repeatable; saved)"
        ) { options, flag, reader throws(UsageError) in
            let (endpoint, url) = try reader.endpoint(flag)
            options.endpoints[endpoint] = url
        },
        CommandFlag(
            ["--dpop"], optionalValues: DPoPMode.allCases.map(\.rawValue),
            help: "DPoP-bound tokens: auto (the default: when the provider advertises ES256), require, or off; alone: require"
        ) { options, flag, reader throws(UsageError) in
            guard let mode = DPoPMode(rawValue: flag.value ?? DPoPMode.require.rawValue) else {
                throw UsageError("--dpop must be auto, require or off", command: reader.command)
            }
            options.dpop = mode
        },
        CommandFlag(
            ["--no-dpop"], help: "plain Bearer tokens, the same as --dpop off (needed for git and other tools that send no proofs)"
        ) { options, _, _ in options.dpop = .off },
    ]

    /// How the browser is reached, and the redirect back.
    private static let browser: [CommandFlag<LoginOptions>] = [
        .text(
            ["--browser-command"], value: "CMD",
            help: "the browser command, split into words (no shell); %s is the URL (default: $BROWSER, xdg-open)",
            into: \.browserCommand),
        .toggle(
            ["--no-browser"],
            help: "only print the URL; paste the final redirect URL on stdin (with stdin closed, it waits for a browser on this machine)",
            sets: \.noBrowser),
        .toggle(
            ["--device"], help: "show a code and a page to open on any other device, and wait for the approval (RFC 8628)",
            sets: \.device),
        .toggle(
            ["--no-qr"],
            help: "with a code for another device, no QR code of the page (drawn on a UTF-8 terminal where libqrencode is installed)",
            sets: \.noQR),
        .number(["--port"], value: "N", help: "a fixed loopback port for providers that match it exactly", in: 0...65535) {
            options, port in options.port = UInt16(port)
        },
        .text(["--redirect-path"], value: "PATH", help: "the redirect path (default /callback)", into: \.redirectPath),
        .text(
            ["--redirect-scheme"], value: "URI",
            help: "sign in through a private-use scheme such as com.example.app:/callback (RFC 8252 §7.1) instead of a loopback port; registers versola handle-redirect for it (\"\" goes back to loopback)",
            into: \.redirectScheme),
        .text(["--ca-file"], value: "PATH", help: "trust this CA bundle for the provider", into: \.caFile),
    ]

    /// What the authorization request asks for, and where the session's key lives.
    private static let request: [CommandFlag<LoginOptions>] = [
        .words(["--acr-values"], value: "V", help: "requested authentication context classes (space-separated)", into: \.acrValues),
        .number(["--max-age"], value: "N", help: "maximum authentication age in seconds", in: 0...Int(Int32.max)) {
            options, age in options.maxAge = age
        },
        .text(["--login-hint"], value: "HINT", help: "who is signing in, passed to the provider", into: \.loginHint),
        // Any value is passed on; the completions offer the ones OpenID Connect defines.
        .text(
            ["--prompt"], value: "P", choices: ["login", "consent", "select_account", "none"],
            help: "ask the provider to prompt: login, consent, select_account or none", into: \.prompt),
        .choice(
            ["--key-source"], value: "SOURCE", choices: KeySourceKind.allCases.map(\.rawValue),
            help: "where the session's key lives: file (the default), secret-service (the desktop keyring) or passphrase",
            refusal: "--key-source must be file, secret-service or passphrase", parse: KeySourceKind.init(rawValue:),
            set: { options, kind in options.keySource = kind }),
    ]

    /// The checks between flags, once all have landed.
    static func login(_ options: LoginOptions) throws(UsageError) -> Command {
        if options.clientSecretFile != nil && options.clientSecretDescriptor != nil {
            throw UsageError("give the client secret once: --client-secret-file or --client-secret-fd", command: .login)
        }
        if options.device && options.noBrowser {
            throw UsageError(
                "--device (a code to enter on another device) and --no-browser (paste the redirect here) are two "
                    + "ways to sign in without a browser; choose one", command: .login)
        }
        return .login(options)
    }
}
