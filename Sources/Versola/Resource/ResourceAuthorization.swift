import VersolaHTTP
import Foundation

/// Sign-in that starts from a protected resource's URL (RFC 9728, RFC 8707, RFC 7591; the
/// Model Context Protocol's authorization rules; A19): finds the resource's authorization
/// server, registers this app there when it has no client id, and returns the
/// ``ClientConfiguration`` of a login bound to the resource. That configuration goes into an
/// ``OpenIDClient`` or a ``Session`` like any other: PKCE, DPoP, the retry rules, persistence
/// and the seven states are the same.
///
/// ```swift
/// var start = ResourceAuthorization(resource: "https://api.example.com/mcp")
/// start.registrations = FileClientRegistrations(directory: "/home/me/.local/state/versola/registrations")
/// let prepared = try await start.prepare()
/// let storage = try SessionStorage.standard(profile: "api")
/// let session = try Session(configuration: SessionConfiguration(client: prepared.configuration), store: storage.store)
/// await session.start()
/// ```
public struct ResourceAuthorization: Sendable {
    /// The resource's identifier, exactly as its metadata must name it.
    public var resource: String
    /// Where the resource's metadata is, when a 401's `WWW-Authenticate: Bearer
    /// resource_metadata=…` said; else the well-known locations are tried.
    public var metadataURL: String?
    /// The scopes a 401's challenge named (`scope`), which come before the metadata's.
    public var challengeScopes: [String]?
    /// The authorization server to use when the resource names several; the first otherwise.
    /// One the resource does not name is refused.
    public var authorizationServer: String?
    /// A client id registered by hand: no registration is made.
    public var clientID: String?
    /// The URL of this app's client ID metadata document, used as its client id where a server
    /// advertises `client_id_metadata_document_supported`.
    public var clientMetadataDocument: String?
    /// Where registrations are kept, so that each server registers this app once; nil keeps none.
    public var registrations: FileClientRegistrations?
    /// The name a registration gives the client.
    public var clientName = "versola"
    /// Timeouts and trust for the requests made here and by the login.
    public var transport = TransportOptions()
    /// The transport, clock and random source.
    public var environment: EngineEnvironment

    /// What ``prepare()`` found.
    public struct Prepared: Sendable {
        /// The configuration of a login bound to the resource.
        public var configuration: ClientConfiguration
        /// The resource's metadata; for a resource that publishes none, what stands for it (the
        /// resource itself, its origin or the server asked for as authorization server, no scopes).
        public var metadata: ProtectedResourceMetadata
        /// Why a new registration was made (first time, or the registered port was taken), or
        /// nil when a kept one or a given client id was used.
        public var registered: String?
    }

    /// Starts from a resource URL.
    public init(resource: String, environment: EngineEnvironment = .system()) {
        self.resource = resource
        self.environment = environment
    }

    /// Starts from a resource's 401 answer: its `WWW-Authenticate` names the metadata (and
    /// perhaps the scopes) when the resource follows RFC 9728 §5.1.
    public init(resource: String, challenge: WWWAuthenticate, environment: EngineEnvironment = .system()) {
        self.init(resource: resource, environment: environment)
        let bearer = challenge.challenge(scheme: "Bearer") ?? challenge.challenge(scheme: "DPoP")
        metadataURL = bearer?["resource_metadata"]
        challengeScopes = bearer?["scope"].map { $0.split(separator: " ").map(String.init) }
    }

    /// Finds the authorization server, registers where needed, and returns the login's configuration.
    ///
    /// The metadata is read from the challenge's `resource_metadata`, then the well-known
    /// locations (``ProtectedResourceMetadata/locations(for:named:)``); where none has any, the
    /// resource's origin is its authorization server (the 2025-03-26 MCP rules: RFC 8414
    /// metadata there, else `/authorize`, `/token` and `/register`). The scopes are the
    /// challenge's, else the metadata's `scopes_supported`, else none; `offline_access` only
    /// where the server lists it.
    /// - Throws: `.configuration` when the metadata names another resource, names no server or
    ///   not the one asked for, when the challenge names a metadata location that may not be
    ///   fetched, when the server's metadata does not list PKCE `S256`, when registration is
    ///   refused or impossible without a client id; `.recoverable` when nothing usable
    ///   answered. No request is sent past the failing step.
    public func prepare() async throws(VersolaError) -> Prepared {
        try ProtectedResourceMetadata.validateResource(resource)
        let sender = EndpointSender(environment: environment, options: transport)
        let budget = try VersolaError.converting { () throws(HTTPFailure) in
            try OperationBudget(policy: RetryPolicy(), clock: environment.clock)
        }
        let found = try await resourceMetadata(sender: sender, budget: budget)
        let metadata = found ?? ProtectedResourceMetadata(withoutDocumentFor: resource, server: authorizationServer)
        let issuer = try pickServer(metadata)
        var configuration = ClientConfiguration(issuer: issuer, clientID: clientID ?? "unregistered")
        configuration.transport = transport
        // The document's resource (the API's URL or a path above it) is the one tokens are for.
        configuration.resource = metadata.resource
        let server = try await serverMetadata(
            &configuration, originFallback: found == nil && issuer == ResourceURL(resource)?.origin.description,
            sender: sender, budget: budget)
        configuration.scopes = Self.scopes(
            challenge: challengeScopes, resource: metadata.scopesSupported, server: server.scopesSupported)
        if clientID != nil { return Prepared(configuration: configuration, metadata: metadata, registered: nil) }
        if let document = clientMetadataDocument, server.document["client_id_metadata_document_supported"]?.bool == true {
            configuration.clientID = document
            return Prepared(configuration: configuration, metadata: metadata, registered: nil)
        }
        let (client, reason) = try await registration(at: server, configuration: configuration, sender: sender, budget: budget)
        configuration.clientID = client.clientID
        configuration.clientSecret = client.clientSecret
        configuration.redirect.port = client.redirectPort
        configuration.redirect.path = client.redirectPath
        if !client.refreshGranted {
            configuration.scopes = configuration.scopes.filter { $0 != ProviderMetadata.offlineAccessScope }
        }
        return Prepared(configuration: configuration, metadata: metadata, registered: reason)
    }

    /// The scopes of a resource-first login (A19): the challenge's, else the resource's, else
    /// none; `offline_access` added where the server lists it and dropped where its list lacks it.
    static func scopes(challenge: [String]?, resource: [String]?, server: [String]?) -> [String] {
        let offline = ProviderMetadata.offlineAccessScope
        var scopes = [challenge, resource].compactMap { $0?.filter { !$0.isEmpty } }.first { !$0.isEmpty } ?? []
        if let server {
            scopes.removeAll { $0 == offline && !server.contains(offline) }
            if server.contains(offline), !scopes.contains(offline) { scopes.append(offline) }
        }
        return scopes
    }

    /// RFC 9728 §3: the metadata named by the challenge, then the well-known locations in turn;
    /// nil when none has any (each answered 4xx or something that is not a JSON object).
    private func resourceMetadata(sender: EndpointSender, budget: OperationBudget) async throws(VersolaError)
        -> ProtectedResourceMetadata?
    {
        let locations = try ProtectedResourceMetadata.locations(for: resource, named: metadataURL)
        for url in locations {
            var request = HTTPRequest(method: .get, url: url)
            request.headers.add("Accept", "application/json")
            let response = try await sender.send(request, kind: .read, budget: budget)
            if (400...499).contains(response.status) { continue }
            guard response.status == 200 else {
                throw .recoverable(
                    .server(ServerFailure(status: response.status, failedRequests: budget.failedRequests, elapsed: budget.elapsed)))
            }
            guard case .object = try? JSONValue(parsing: response.body) else { continue }
            return try ProtectedResourceMetadata(parsing: response.body, resource: resource)
        }
        environment.log.record(
            VersolaLogEvent(
                .info, "\(resource) publishes no protected resource metadata (tried "
                    + locations.map(\.absoluteString).joined(separator: ", ") + "): its origin is taken as its authorization server"))
        return nil
    }

    /// The server's metadata (A16), which must list PKCE `S256` (A19). With `originFallback`
    /// (no resource metadata, the server is the resource's origin), a server with no metadata
    /// either has the 2025-03-26 default endpoints, which `configuration` is given.
    private func serverMetadata(
        _ configuration: inout ClientConfiguration, originFallback: Bool, sender: EndpointSender, budget: OperationBudget
    ) async throws(VersolaError) -> ProviderMetadata {
        let server: ProviderMetadata
        do {
            server = try await DiscoveryClient(configuration: configuration, sender: sender).metadata(budget: budget)
        } catch {
            guard originFallback, case .configuration(.invalidConfiguration) = error else { throw error }
            configuration.endpoints[.authorization] = URL(string: configuration.issuer + "/authorize")
            configuration.endpoints[.token] = URL(string: configuration.issuer + "/token")
            environment.log.record(
                VersolaLogEvent(.info, "\(configuration.issuer) publishes no metadata: using /authorize, /token and /register there"))
            return try ProviderMetadata(issuer: configuration.issuer, endpoints: configuration.endpoints)
        }
        guard server.codeChallengeMethodsSupported?.contains("S256") == true else {
            let listed = (server.codeChallengeMethodsSupported ?? []).map { ProviderText.clean($0, limit: 40) }
            throw .configuration(
                .providerUnsupported(
                    "\(server.issuer) does not list PKCE S256 in code_challenge_methods_supported (it lists "
                        + (listed.isEmpty ? "none" : listed.joined(separator: ", ")) + "), which a sign-in for "
                        + "\(resource) requires: versola signs in there only with PKCE"))
        }
        return server
    }

    private func pickServer(_ metadata: ProtectedResourceMetadata) throws(VersolaError) -> String {
        guard let wanted = authorizationServer else { return metadata.authorizationServers[0] }
        guard metadata.authorizationServers.contains(wanted) else {
            let listed = metadata.authorizationServers.map { ProviderText.clean($0, limit: 200) }.joined(separator: ", ")
            throw .configuration(
                .invalidConfiguration("\(resource) does not name \(wanted) as its authorization server (it names \(listed))"))
        }
        return wanted
    }

    /// A kept registration whose port is free and whose scopes cover the login's, else a new
    /// one (A19).
    private func registration(
        at server: ProviderMetadata, configuration: ClientConfiguration, sender: EndpointSender, budget: OperationBudget
    ) async throws(VersolaError) -> (RegisteredClient, String?) {
        // RFC 7591 §2: the scopes the client will ask for. Servers such as the MCP SDK's allow a
        // client only the scopes it registered, so this names what the login's request will carry.
        let scopes = configuration.usesDefaultScopes ? server.defaultScopes : configuration.scopes
        var reason = "versola registered itself at \(server.issuer)"
        if let problem = registrations?.problem(for: server.issuer) {
            reason = "\(problem); versola ignored it and registered itself at \(server.issuer)"
        } else if let kept = try registrations?.registration(for: server.issuer) {
            let portFree = kept.redirectPort == 0 || LoopbackPortProbe.available(kept.redirectPort) != nil
            if portFree && kept.covers(scopes) { return (kept, nil) }
            reason =
                portFree
                ? "the kept registration at \(server.issuer) does not cover the scopes \(scopes.joined(separator: " ")), so versola registered again"
                : "port \(kept.redirectPort) of the registered redirect is taken, so versola registered again at \(server.issuer)"
        }
        // Without metadata (the 2025-03-26 rules) registration is at `/register` on the server.
        let named = server.source == .configuration ? server.issuer + "/register" : server.document["registration_endpoint"]?.string
        guard let endpoint = named.flatMap(URL.init(string:)),
            let origin = Origin(url: endpoint), endpoint.scheme == "https" || (endpoint.scheme == "http" && origin.isLoopback)
        else {
            throw .configuration(
                .invalidConfiguration(
                    "\(server.issuer) offers no client registration (no registration_endpoint); register a client "
                        + "there yourself and give its id with --client-id"))
        }
        guard let port = LoopbackPortProbe.available(0) else {
            throw .configuration(.invalidConfiguration("no loopback port is free for the redirect"))
        }
        let redirectURI = "http://127.0.0.1:\(port)\(configuration.redirect.path)"
        let client = try await ClientRegistrationEndpoint(url: endpoint, sender: sender).register(
            issuer: server.issuer, redirectURI: redirectURI, clientName: clientName,
            scope: scopes.isEmpty ? nil : scopes.joined(separator: " "), budget: budget)
        try registrations?.save(client)
        environment.log.record(VersolaLogEvent(.info, reason))
        return (client, reason)
    }
}
