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
        /// The resource's metadata.
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
    /// - Throws: `.configuration` when the metadata names another resource, names no server or
    ///   not the one asked for, when registration is refused or impossible without a client id;
    ///   `.recoverable` when nothing usable answered. No request is sent past the failing step.
    public func prepare() async throws(VersolaError) -> Prepared {
        try ProtectedResourceMetadata.validateResource(resource)
        let sender = EndpointSender(environment: environment, options: transport)
        let budget = try VersolaError.converting { () throws(HTTPFailure) in
            try OperationBudget(policy: RetryPolicy(), clock: environment.clock)
        }
        let metadata = try await resourceMetadata(sender: sender, budget: budget)
        let issuer = try pickServer(metadata)
        var configuration = ClientConfiguration(issuer: issuer, clientID: clientID ?? "unregistered")
        configuration.transport = transport
        configuration.resource = resource
        if let scopes = challengeScopes ?? metadata.scopesSupported, !scopes.isEmpty { configuration.scopes = scopes }
        let server = try await DiscoveryClient(configuration: configuration, sender: sender).metadata(budget: budget)
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

    /// RFC 9728 §3: the metadata named by the challenge, else the well-known locations in turn.
    private func resourceMetadata(sender: EndpointSender, budget: OperationBudget) async throws(VersolaError)
        -> ProtectedResourceMetadata
    {
        var locations = ProtectedResourceMetadata.locations(for: resource)
        if let metadataURL {
            guard let url = URL(string: metadataURL), let origin = Origin(url: url),
                url.scheme == "https" || (url.scheme == "http" && origin.isLoopback)
            else {
                throw .configuration(
                    .providerUnsupported("the resource names its metadata at \(ProviderText.clean(metadataURL, limit: 200)), which is not an https URL"))
            }
            locations = [url]
        }
        for url in locations {
            var request = HTTPRequest(method: .get, url: url)
            request.headers.add("Accept", "application/json")
            let response = try await sender.send(request, kind: .read, budget: budget)
            if response.status == 404 || response.status == 410 { continue }
            guard response.status == 200 else {
                throw .recoverable(
                    .server(ServerFailure(status: response.status, failedRequests: budget.failedRequests, elapsed: budget.elapsed)))
            }
            return try ProtectedResourceMetadata(parsing: response.body, resource: resource)
        }
        throw .configuration(
            .providerUnsupported(
                "\(resource) publishes no protected resource metadata (tried "
                    + locations.map(\.absoluteString).joined(separator: ", ")
                    + "); give its authorization server with --issuer and a client with --client-id"))
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
        if let kept = try registrations?.registration(for: server.issuer) {
            let portFree = kept.redirectPort == 0 || LoopbackPortProbe.available(kept.redirectPort) != nil
            if portFree && kept.covers(scopes) { return (kept, nil) }
            reason =
                portFree
                ? "the kept registration at \(server.issuer) does not cover the scopes \(scopes.joined(separator: " ")), so versola registered again"
                : "port \(kept.redirectPort) of the registered redirect is taken, so versola registered again at \(server.issuer)"
        }
        guard let endpoint = server.document["registration_endpoint"]?.string.flatMap(URL.init(string:)),
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
