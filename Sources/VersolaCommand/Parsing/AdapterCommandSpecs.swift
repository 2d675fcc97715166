/// The commands that serve docker, Python package tools and cargo from a profile's session:
/// the `setup-*` commands that write the target table, and the adapters those tools run.
enum AdapterCommandSpecs {
    static let all: [CommandForm] = [setupDocker, dockerCredential, setupPip, credential, setupCargo, cargoCredential]

    private static let username = "the user name sent with the token (default oauth2)"

    static let setupDocker = CommandForm(
        .setupDocker, summary: "serve a docker registry from the profile (docker's credential helper)",
        details: """
            Records in versola's target table that the profile serves the registry, and prints the
            docker config entry {"credHelpers": {"HOST": "versola"}} that makes docker, skopeo and
            podman run docker-credential-versola for it (--write merges it into
            $DOCKER_CONFIG/config.json, else ~/.docker/config.json, keeping every other setting).
            The user name is oauth2 (oauth2accesstoken for Google Artifact Registry and gcr.io).
            The profile must give Bearer tokens: sign in with versola login --no-dpop.
            """,
        options: SetupDockerOptions(),
        flags: [
            .text(["--host"], value: "HOST[:PORT]", help: "the registry, as docker names it (registry.example.com, 127.0.0.1:5000)", into: \.host),
            .text(["--username"], value: "NAME", help: username + "; oauth2accesstoken for Google registries", into: \.username),
            .tokenKind(help: "access (the default) or id: the token the registry is given", into: \.token),
            .toggle(["--write"], help: "merge the entry into docker's config.json instead of printing it", sets: \.write),
        ]
    ) { options, _ in .setupDocker(options) }

    static let dockerCredential = CommandForm(
        .dockerCredential, summary: "docker's credential helper (run as docker-credential-versola)",
        arguments: "get|store|erase|list", argumentChoices: DockerCredentialOperation.allCases.map(\.rawValue),
        details: """
            Speaks the docker credential helper protocol; make install links it as
            docker-credential-versola. get reads a server address on standard input and answers
            {"ServerURL","Username","Secret"} with the session's token for a registry set up with
            setup-docker; any other registry, or one whose profile has no usable session, exits 1
            with "credentials not found in native keychain" (the reason on standard error), and the
            client goes on without credentials. list prints the served registries; store and erase
            keep nothing (the session is the only credential).
            """,
        options: (), argumentNeeded: "get, store, erase or list"
    ) { _, arguments throws(UsageError) in
        guard let operation = DockerCredentialOperation(rawValue: arguments[0]) else {
            throw UsageError(
                "'docker-credential' takes get, store, erase or list, not '\(arguments[0])'", command: .dockerCredential)
        }
        return .dockerCredential(operation)
    }

    static let setupPip = CommandForm(
        .setupPip, summary: "serve a Python package index from the profile (pip, uv, twine)",
        details: """
            Records in versola's target table that the profile serves the index URL and every URL
            below it, and prints what pip, uv and twine need: the keyring provider and the index.
            The keyring backend asks versola credential --url for each URL.
            """,
        options: SetupPipOptions(),
        flags: [
            .text(["--url"], value: "INDEX_URL", help: "the index, such as https://packages.example.com/simple/", into: \.url),
            .text(["--username"], value: "NAME", help: username, into: \.username),
            .tokenKind(help: "access (the default) or id: the token the index is given", into: \.token),
        ]
    ) { options, _ in .setupPip(options) }

    static let credential = CommandForm(
        .credential, summary: "the credential for a URL as JSON (the Python keyring backend's)",
        details: """
            Prints {"username","password","expires_at"} for a URL a target of setup-pip covers (the
            longest prefix wins; scheme, host and port must match), from the profile's session,
            refreshed when needed; it never prompts. Exit 1 with nothing printed when no target
            covers the URL; exit 4 when the profile needs a sign-in first.
            """,
        options: CredentialOptions(),
        flags: [.text(["--url"], value: "URL", help: "the URL a credential is asked for", into: \.url)]
    ) { options, _ in .credential(options) }

    static let setupCargo = CommandForm(
        .setupCargo, summary: "serve a cargo registry from the profile (cargo's credential provider)",
        details: """
            Records in versola's target table that the profile serves the registry's sparse index,
            and prints the cargo config that makes cargo ask versola cargo-credential for its token
            ([registries.NAME] with index and credential-provider).
            """,
        options: SetupCargoOptions(),
        flags: [
            .text(["--registry"], value: "NAME", help: "the registry's name in cargo's config", into: \.registry),
            .text(["--index"], value: "sparse+URL", help: "its sparse index, such as sparse+https://crates.example.com/index/", into: \.index),
            .tokenKind(help: "access (the default) or id: the token the registry is given", into: \.token),
            .choice(
                ["--authorization"], value: "FORM", choices: CredentialTarget.Authorization.allCases.map(\.rawValue),
                help: "bearer (the default: Bearer TOKEN) or token (the token alone): what cargo sends",
                refusal: "--authorization must be bearer or token", parse: CredentialTarget.Authorization.init(rawValue:),
                set: { options, form in options.authorization = form }),
        ]
    ) { options, _ in .setupCargo(options) }

    static let cargoCredential = CommandForm(
        .cargoCredential, summary: "cargo's credential provider (set up by setup-cargo)",
        details: """
            Speaks cargo's credential-provider protocol (version 1) on standard input and output:
            get is answered with the session's token for a registry set up with setup-cargo, with
            its expiry so cargo caches it until then; other registries are url-not-supported, and
            login and logout are operation-not-supported (sign in with versola login).
            """,
        options: CargoCredentialOptions(),
        flags: [.toggle(["--cargo-plugin"], help: "cargo's mark that it speaks the provider protocol", sets: \.cargoPlugin)]
    ) { options, _ in .cargoCredential(options) }
}
