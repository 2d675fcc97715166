import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// What `versola login` remembers about a profile, so later commands need only `--profile`:
/// the provider, the client and the login options. The only secret it may hold is an installed
/// app's client secret (A17), which the profile file keeps user-only and no output shows.
public struct ProfileSettings: Sendable, Hashable {
    /// The issuer.
    public var issuer: String
    /// The client id.
    public var clientID: String
    /// Requested scopes, sent exactly as given; nil for the engine's defaults, which it adapts
    /// to the provider (A12, A16).
    public var scopes: [String]?
    /// An installed app's client secret (`--client-secret-file`, `--client-secret-fd`; A17).
    public var clientSecret: ClientSecret?
    /// Endpoint overrides (`--endpoint NAME=URL`; A16, A18).
    public var endpoints: EndpointOverrides
    /// Extra authorization parameters (`--auth-param NAME=VALUE`; A18).
    public var authorizationParameters: [String: String]
    /// The protected resource the profile's tokens are for (`--resource URL`; A19).
    public var resource: String?
    /// When tokens are DPoP-bound (A11): `auto` unless `--dpop` said otherwise.
    public var dpop: DPoPMode
    /// The browser command, when one was given.
    public var browserCommand: String?
    /// The fixed loopback port, 0 for an ephemeral one.
    public var port: UInt16
    /// The redirect path.
    public var redirectPath: String
    /// The private-use scheme redirect (L7), when the login uses one instead of loopback.
    public var redirectScheme: PrivateUseRedirect?
    /// A private CA bundle for the provider.
    public var caFile: String?
    /// The git servers `versola git-credential` answers for (`versola setup-git --host`).
    public var gitHosts: [String]
    /// Where the key sealing the profile's session lives (`--key-source`): the key file unless
    /// the login said otherwise. Every command and the agent open the store with it.
    public var keySource: KeySourceKind

    /// Creates settings with the engine's defaults for everything but issuer and client.
    public init(issuer: String, clientID: String) {
        let defaults = ClientConfiguration(issuer: issuer, clientID: clientID)
        self.issuer = issuer
        self.clientID = clientID
        self.scopes = nil
        self.clientSecret = nil
        self.endpoints = EndpointOverrides()
        self.authorizationParameters = [:]
        self.resource = nil
        self.dpop = defaults.dpop
        self.browserCommand = nil
        self.port = defaults.redirect.port
        self.redirectPath = defaults.redirect.path
        self.caFile = nil
        self.gitHosts = []
        self.keySource = .keyFile
    }

    /// These settings with `options` laid over them (a flag given wins).
    /// - Throws: `.configuration(.invalidConfiguration)` when neither the options nor the saved
    ///   settings name an issuer and a client.
    public static func merging(_ options: LoginOptions, over saved: ProfileSettings?, profile: String)
        throws(VersolaError) -> ProfileSettings
    {
        let issuer = options.issuer ?? saved?.issuer
        let clientID = options.clientID ?? saved?.clientID
        guard let issuer, let clientID else {
            let missing =
                switch (issuer, clientID) {
                case (.some, nil): "--client-id is missing"
                case (nil, .some): "--issuer is missing"
                default: "--issuer and --client-id are missing"
                }
            let flag = profile == "default" ? "" : " --profile \(ShellWord.quoted(profile))"
            throw .configuration(
                .invalidConfiguration(
                    "\(missing): profile '\(profile)' has no provider and client yet; "
                        + "sign in once with both: versola login\(flag) --issuer URL --client-id ID"))
        }
        var settings = saved ?? ProfileSettings(issuer: issuer, clientID: clientID)
        if settings.issuer != issuer || settings.clientID != clientID {
            // A different provider or client: start from the defaults again, but the session
            // stays where the profile keeps it (the key source is about this machine, not the provider).
            settings = ProfileSettings(issuer: issuer, clientID: clientID)
            settings.keySource = saved?.keySource ?? .keyFile
        }
        if let keySource = options.keySource { settings.keySource = keySource }
        if !options.scopes.isEmpty { settings.scopes = options.scopes }
        if let secret = try ClientSecretInput.read(options) { settings.clientSecret = secret }
        for (name, text) in options.endpoints {
            guard let url = URL(string: text) else {
                throw .configuration(.invalidConfiguration("--endpoint \(name.rawValue)= is not a URL"))
            }
            settings.endpoints[name] = url
        }
        settings.authorizationParameters.merge(options.authorizationParameters) { _, given in given }
        if let resource = options.resource { settings.resource = resource }
        if let dpop = options.dpop { settings.dpop = dpop }
        if let command = options.browserCommand { settings.browserCommand = command }
        if let port = options.port { settings.port = port }
        if let path = options.redirectPath { settings.redirectPath = path }
        if let scheme = options.redirectScheme { settings.redirectScheme = scheme.isEmpty ? nil : try PrivateUseRedirect(scheme) }
        if let caFile = options.caFile { settings.caFile = caFile }
        return settings
    }

    /// Whether DPoP may be used (the mode is not `off`); whether it is, depends on the provider
    /// in `auto` mode (``OpenIDClient/resolvedDPoP()``).
    public var usesDPoP: Bool { dpop != .off }

    /// The engine configuration these settings describe.
    public var clientConfiguration: ClientConfiguration {
        var configuration = ClientConfiguration(issuer: issuer, clientID: clientID)
        if let scopes { configuration.scopes = scopes }
        configuration.clientSecret = clientSecret
        configuration.endpoints = endpoints
        configuration.extraAuthorizationParameters = authorizationParameters
        configuration.resource = resource
        configuration.dpop = dpop
        configuration.redirect.port = port
        configuration.redirect.path = redirectPath
        configuration.privateUseRedirect = redirectScheme
        configuration.transport.caFile = caFile
        return configuration
    }

    /// The settings as stored (the profile file is user-only: it may hold the client secret).
    public var json: JSONValue {
        [
            "issuer": .string(issuer), "clientID": .string(clientID),
            "scopes": scopes.map { .array($0.map { .string($0) }) } ?? .null,
            "clientSecret": clientSecret.map { .string($0.value) } ?? .null,
            "resource": resource.map { .string($0) } ?? .null,
            "endpoints": .object(JSONObject(endpoints.all.map { ($0.name.rawValue, .string($0.url.absoluteString)) })),
            "authorizationParameters": .object(
                JSONObject(authorizationParameters.keys.sorted().map { ($0, .string(authorizationParameters[$0]!)) })),
            "dpop": .string(dpop.rawValue), "browserCommand": browserCommand.map { .string($0) } ?? .null,
            "port": .integer(Int64(port)), "redirectPath": .string(redirectPath),
            "caFile": caFile.map { .string($0) } ?? .null, "redirectScheme": redirectScheme.map { .string($0.uri) } ?? .null,
            "gitHosts": .array(gitHosts.map { .string($0) }),
            "keySource": .string(keySource.rawValue),
        ]
    }

    /// Reads stored settings; unknown members are ignored, missing optional ones take defaults.
    /// - Throws: `.configuration(.invalidConfiguration)` when required members are missing or
    ///   mistyped, or the key source is not one this version knows (guessing one would open the
    ///   session with the wrong key).
    public init(json value: JSONValue) throws(VersolaError) {
        guard let issuer = value["issuer"]?.string, let clientID = value["clientID"]?.string else {
            throw .configuration(.invalidConfiguration("the profile file lacks issuer or clientID"))
        }
        self.init(issuer: issuer, clientID: clientID)
        if let scopes = value["scopes"]?.array {
            let names = scopes.compactMap(\.string)
            // Profiles saved before A12 stored the defaults themselves: read them as the defaults.
            self.scopes = names == ClientConfiguration.defaultScopes ? nil : names
        }
        if let secret = value["clientSecret"]?.string, !secret.isEmpty { clientSecret = ClientSecret(secret) }
        resource = value["resource"]?.string
        for member in value["endpoints"]?.object?.members ?? [] {
            guard let name = EndpointOverrides.Name(rawValue: member.name), let text = member.value.string,
                let url = URL(string: text)
            else {
                throw .configuration(
                    .invalidConfiguration("the profile file has an endpoint override versola cannot read (\(member.name))"))
            }
            endpoints[name] = url
        }
        for member in value["authorizationParameters"]?.object?.members ?? [] {
            if let text = member.value.string { authorizationParameters[member.name] = text }
        }
        if let mode = value["dpop"]?.string.flatMap(DPoPMode.init(rawValue:)) {
            dpop = mode
        } else if value["dpop"]?.bool == false {
            // Saved before the modes existed: `false` was `--no-dpop`; `true` was the old
            // default (and mostly not chosen), so it reads as the new default, `auto`.
            dpop = .off
        }
        browserCommand = value["browserCommand"]?.string
        if let port = value["port"]?.int64, let fitting = UInt16(exactly: port) { self.port = fitting }
        if let path = value["redirectPath"]?.string { redirectPath = path }
        redirectScheme = try value["redirectScheme"]?.string.map { (uri) throws(VersolaError) in try PrivateUseRedirect(uri) }
        caFile = value["caFile"]?.string
        gitHosts = value["gitHosts"]?.array?.compactMap(\.string) ?? []
        if let name = value["keySource"]?.string {
            guard let kind = KeySourceKind(rawValue: name) else {
                throw .configuration(
                    .invalidConfiguration(
                        "the profile file names key source '\(name)', which is not file, secret-service or passphrase"))
            }
            keySource = kind
        }
    }
}
