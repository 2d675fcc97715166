import Versola
import VersolaHTTP

/// `versola login` options. Every field left `nil` comes from the saved profile (or the
/// engine's default).
public struct LoginOptions: Sendable, Hashable {
    /// `--issuer URL`.
    public var issuer: String?
    /// `--client-id ID`.
    public var clientID: String?
    /// `--scope S`, repeatable (each value may also hold several space-separated scopes).
    public var scopes: [String]
    /// `--dpop auto|require|off`; `--dpop` alone is `require`, `--no-dpop` is `off` (A11).
    public var dpop: DPoPMode?
    /// `--browser-command CMD` (`%s` is the URL).
    public var browserCommand: String?
    /// `--no-browser`: print the URL only and accept a pasted redirect on stdin.
    public var noBrowser: Bool
    /// `--device`: sign in on another device with a user code (RFC 8628, A14), also chosen
    /// without the flag when no browser can be started and the provider offers it.
    public var device: Bool
    /// `--port N`: a fixed loopback port.
    public var port: UInt16?
    /// `--redirect-path PATH`.
    public var redirectPath: String?
    /// `--ca-file PATH`: a private CA bundle.
    public var caFile: String?
    /// `--acr-values V` (space-separated).
    public var acrValues: [String]
    /// `--max-age N` in seconds.
    public var maxAge: Int?
    /// `--login-hint HINT`.
    public var loginHint: String?
    /// `--prompt VALUE` (`login`, `consent`, `select_account`, `none`).
    public var prompt: String?
    /// `--key-source file|secret-service|passphrase`: where the session's key lives (saved).
    public var keySource: KeySourceKind?
    /// `--passphrase-fd N`: read the passphrase of a passphrase profile from descriptor N.
    public var passphraseDescriptor: Int32?
    /// `--client-secret-file PATH`: an installed app's client secret (A17), read from a file.
    public var clientSecretFile: String?
    /// `--client-secret-fd N`: the client secret, read from descriptor N.
    public var clientSecretDescriptor: Int32?
    /// `--auth-param NAME=VALUE`, repeatable: extra authorization parameters (A18), saved.
    public var authorizationParameters: [String: String] = [:]
    /// `--endpoint NAME=URL`, repeatable: endpoint overrides (A16, A18), saved.
    public var endpoints: [EndpointOverrides.Name: String] = [:]
    /// `--resource URL`: sign in for a protected resource, found from its URL (A19), saved.
    public var resource: String?
    /// `--client-metadata-url URL`: this app's client ID metadata document, its client id at an
    /// authorization server that advertises them (A19); others get an RFC 7591 registration.
    public var clientMetadataURL: String?
    /// `--redirect-scheme URI`: a private-use scheme redirect (L7) instead of the loopback
    /// listener; an empty value goes back to the loopback redirect (saved either way).
    public var redirectScheme: String?
    /// `--no-qr`: a device sign-in shows no QR code of its page.
    public var noQR = false

    /// No options given.
    public init(
        issuer: String? = nil, clientID: String? = nil, scopes: [String] = [], dpop: DPoPMode? = nil,
        browserCommand: String? = nil, noBrowser: Bool = false, port: UInt16? = nil, redirectPath: String? = nil,
        caFile: String? = nil, acrValues: [String] = [], maxAge: Int? = nil, loginHint: String? = nil,
        prompt: String? = nil, device: Bool = false, keySource: KeySourceKind? = nil,
        passphraseDescriptor: Int32? = nil
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.scopes = scopes
        self.dpop = dpop
        self.browserCommand = browserCommand
        self.noBrowser = noBrowser
        self.device = device
        self.port = port
        self.redirectPath = redirectPath
        self.caFile = caFile
        self.acrValues = acrValues
        self.maxAge = maxAge
        self.loginHint = loginHint
        self.prompt = prompt
        self.keySource = keySource
        self.passphraseDescriptor = passphraseDescriptor
    }
}

/// `versola unlock` options.
public struct UnlockOptions: Sendable, Hashable {
    /// `--passphrase-fd N`: read the passphrase from descriptor N instead of the terminal.
    public var passphraseDescriptor: Int32?

    /// Creates the options.
    public init(passphraseDescriptor: Int32? = nil) {
        self.passphraseDescriptor = passphraseDescriptor
    }
}

/// How `versola token` prints the token.
public enum TokenFormat: String, Sendable, Hashable, CaseIterable {
    /// The token alone and a newline.
    case raw
    /// `{"accessToken":…,"tokenType":…,"expiresAt":…}`.
    case json
    /// An ExecCredential for kubectl, in the version `KUBERNETES_EXEC_INFO` asks for
    /// (`client.authentication.k8s.io/v1` when it is not set).
    case k8s
}

/// Which token `versola token` hands out.
public enum TokenKind: String, Sendable, Hashable, CaseIterable {
    /// The access token (the default): what resource servers accept.
    case access
    /// The ID token: what kube-apiserver's OIDC authenticator validates.
    case id
}

/// `versola token` options.
public struct TokenOptions: Sendable, Hashable {
    /// `--force-refresh`: skip the cached token (T4).
    public var forceRefresh: Bool
    /// `--format raw|json|k8s`; `nil` means `raw`, or `json` with `--json`.
    public var format: TokenFormat?
    /// `--token access|id`.
    public var token: TokenKind
    /// `--resource URL`: the token of the resource's profile (A19).
    public var resource: String?

    /// Creates the options.
    public init(forceRefresh: Bool = false, format: TokenFormat? = nil, token: TokenKind = .access) {
        self.forceRefresh = forceRefresh
        self.format = format
        self.token = token
    }
}

/// `versola status` options.
public struct StatusOptions: Sendable, Hashable {
    /// `--watch`: keep printing each state change (S3).
    public var watch: Bool

    /// Creates the options.
    public init(watch: Bool = false) {
        self.watch = watch
    }
}

/// `versola logout` options.
public struct LogoutOptions: Sendable, Hashable {
    /// `--end-session`: also open the provider's end-session page (A9).
    public var endSession: Bool

    /// Creates the options.
    public init(endSession: Bool = false) {
        self.endSession = endSession
    }
}

/// One `-H 'Name: value'` header of `versola request`.
public struct HeaderArgument: Sendable, Hashable {
    /// The field name.
    public var name: String
    /// The field value.
    public var value: String

    /// Creates a header.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// `versola request` options.
public struct RequestOptions: Sendable, Hashable {
    /// `-X METHOD`; `nil` means GET, or POST when data is given.
    public var method: String?
    /// `-H 'K: V'`, repeatable, in order.
    public var headers: [HeaderArgument]
    /// `-d DATA` (`@FILE` reads a file, `@-` standard input).
    public var data: String?
    /// The URL.
    public var url: String
    /// `--fail`: exit 22 on an answer of HTTP 400 or above.
    public var fail: Bool

    /// Creates the options.
    public init(
        method: String? = nil, headers: [HeaderArgument] = [], data: String? = nil, url: String, fail: Bool = false
    ) {
        self.method = method
        self.headers = headers
        self.data = data
        self.url = url
        self.fail = fail
    }

    /// The method actually sent.
    public var effectiveMethod: String { method ?? (data == nil ? "GET" : "POST") }
}

/// `versola verify` options.
public struct VerifyOptions: Sendable, Hashable {
    /// `--issuer URL`; `nil` means the token's `iss` (which then must be the profile's
    /// issuer, or any issuer when no profile exists).
    public var issuer: String?
    /// `--audience AUD`: require it in `aud`.
    public var audience: String?
    /// `--ca-file PATH`.
    public var caFile: String?
    /// `--type at+jwt`: require the header's `typ` of an RFC 9068 access token.
    public var type: VerifiedTokenType?
    /// The compact JWS; `-` reads standard input.
    public var token: String

    /// Creates the options.
    public init(
        issuer: String? = nil, audience: String? = nil, caFile: String? = nil, type: VerifiedTokenType? = nil,
        token: String
    ) {
        self.issuer = issuer
        self.audience = audience
        self.caFile = caFile
        self.type = type
        self.token = token
    }
}

/// The kinds of token `versola verify --type` can require.
public enum VerifiedTokenType: String, Sendable, Hashable, CaseIterable {
    /// An OAuth 2.0 access token in JWT form (RFC 9068 §2.1): `typ` is `at+jwt` or
    /// `application/at+jwt`.
    case accessToken = "at+jwt"

    /// Whether a header `typ` names this kind (media types compare without letter case).
    public func accepts(_ typ: String?) -> Bool {
        guard let typ = typ?.lowercased() else { return false }
        return typ == rawValue || typ == "application/" + rawValue
    }
}

/// `versola agent` options.
public struct AgentOptions: Sendable, Hashable {
    /// `--idle-timeout SECONDS`: exit after this long without a request (default 600).
    public var idleTimeoutSeconds: Int
    /// `--stop`: ask a running agent to exit.
    public var stop: Bool
    /// `--stdio`: answer one agent request read from standard input on standard output, then
    /// exit (the agent's refresh process, ``RefreshChild``).
    public var stdio: Bool

    /// The default idle time.
    public static let defaultIdleTimeoutSeconds = 600

    /// Creates the options.
    public init(idleTimeoutSeconds: Int = AgentOptions.defaultIdleTimeoutSeconds, stop: Bool = false, stdio: Bool = false) {
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.stop = stop
        self.stdio = stdio
    }
}

/// What git asks of `versola git-credential` (gitcredentials(7)).
public enum GitCredentialOperation: String, Sendable, Hashable, CaseIterable {
    /// Answer a credential for the request described on standard input.
    case get
    /// Remember a credential git used successfully (nothing to do: the session holds it).
    case store
    /// Forget a credential the server refused.
    case erase
}

/// `versola setup-git` options.
public struct SetupGitOptions: Sendable, Hashable {
    /// `--host H`: the git server to add; nil configures the hosts already in the profile.
    public var host: String?

    /// Creates the options.
    public init(host: String? = nil) {
        self.host = host
    }
}

/// `versola setup-kubectl` options.
public struct SetupKubectlOptions: Sendable, Hashable {
    /// `--token access|id`: the token the kubeconfig user asks for.
    public var token: TokenKind
    /// `--api-version v1|v1beta1`: the ExecCredential version of the kubeconfig user.
    public var apiVersion: ExecCredentialVersion

    /// Creates the options.
    public init(token: TokenKind = .access, apiVersion: ExecCredentialVersion = .v1) {
        self.token = token
        self.apiVersion = apiVersion
    }
}

/// The shells `versola completion` writes a script for.
public enum CompletionShell: String, Sendable, Hashable, CaseIterable {
    /// bash (with bash-completion).
    case bash
    /// zsh.
    case zsh
    /// fish.
    case fish
}
