/// `versola setup-docker` options.
public struct SetupDockerOptions: Sendable, Hashable {
    /// `--host HOST[:PORT]`: the registry.
    public var host: String?
    /// `--username U`: the user name docker sends (default `oauth2`; `oauth2accesstoken` for
    /// Google Artifact Registry and Container Registry).
    public var username: String?
    /// `--token access|id`.
    public var token: TokenKind
    /// `--write`: merge the `credHelpers` entry into docker's config file.
    public var write: Bool

    /// Creates the options.
    public init(host: String? = nil, username: String? = nil, token: TokenKind = .access, write: Bool = false) {
        self.host = host
        self.username = username
        self.token = token
        self.write = write
    }
}

/// `versola setup-pip` options.
public struct SetupPipOptions: Sendable, Hashable {
    /// `--url INDEX_URL`: the index (and everything below it on the same origin).
    public var url: String?
    /// `--username U` (default `oauth2`).
    public var username: String?
    /// `--token access|id`.
    public var token: TokenKind

    /// Creates the options.
    public init(url: String? = nil, username: String? = nil, token: TokenKind = .access) {
        self.url = url
        self.username = username
        self.token = token
    }
}

/// `versola setup-cargo` options.
public struct SetupCargoOptions: Sendable, Hashable {
    /// `--registry NAME`: the registry's name in cargo's config.
    public var registry: String?
    /// `--index sparse+URL`: its sparse index.
    public var index: String?
    /// `--token access|id`.
    public var token: TokenKind
    /// `--authorization bearer|token`: `Bearer <token>` (the default) or the token alone.
    public var authorization: CredentialTarget.Authorization

    /// Creates the options.
    public init(
        registry: String? = nil, index: String? = nil, token: TokenKind = .access, authorization: CredentialTarget.Authorization = .bearer
    ) {
        self.registry = registry
        self.index = index
        self.token = token
        self.authorization = authorization
    }
}

/// What docker asks of `docker-credential-versola` (the docker credential helper protocol).
public enum DockerCredentialOperation: String, Sendable, Hashable, CaseIterable {
    /// The credential for the server address on standard input.
    case get
    /// Remember a credential (`docker login`): nothing is stored, the session answers.
    case store
    /// Forget a credential (`docker logout`): nothing is stored, nothing to forget.
    case erase
    /// The served registries and their user names.
    case list
}

/// `versola credential` options.
public struct CredentialOptions: Sendable, Hashable {
    /// `--url URL`: the URL a credential is asked for.
    public var url: String?

    /// Creates the options.
    public init(url: String? = nil) {
        self.url = url
    }
}

/// `versola cargo-credential` options.
public struct CargoCredentialOptions: Sendable, Hashable {
    /// `--cargo-plugin`: cargo's mark that it speaks its credential-provider protocol.
    public var cargoPlugin: Bool

    /// Creates the options.
    public init(cargoPlugin: Bool = false) {
        self.cargoPlugin = cargoPlugin
    }
}
