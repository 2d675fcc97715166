import Foundation
import Versola

/// `versola login --resource URL` (A19): from the API's URL alone, its authorization server,
/// a registration where no client id is given (kept per server under the state directory, so
/// it happens once), the scopes, and the redirect port the registration named.
enum ResourceLogin {
    /// What the resource's metadata and the registration decided.
    struct Resolved {
        /// The login's options with the server, client, port and path filled in.
        var options: LoginOptions
        /// The configuration ``ResourceAuthorization`` made, nil for a login without `--resource`.
        var configuration: ClientConfiguration?
        /// A line for the person when a registration was made.
        var note: String?

        /// Puts what the options cannot say into the profile: the scopes chosen (none at all
        /// included), the resource the metadata named (which the tokens are for), the endpoints of
        /// a server without metadata, a secret the registration forced.
        /// A new registration (another client) starts the profile afresh: what belongs to this
        /// machine rather than the client (the browser command, a CA file) is kept from `saved`.
        func apply(to settings: inout ProfileSettings, saved: ProfileSettings?) {
            guard let configuration else { return }
            if settings.browserCommand == nil { settings.browserCommand = saved?.browserCommand }
            if settings.caFile == nil { settings.caFile = saved?.caFile }
            if options.scopes.isEmpty { settings.scopes = configuration.scopes }
            settings.resource = configuration.resource
            for name in EndpointOverrides.Name.allCases where settings.endpoints[name] == nil {
                if let url = configuration.endpoints[name] { settings.endpoints[name] = url }
            }
            if let secret = configuration.clientSecret { settings.clientSecret = secret }
        }
    }

    /// Resolves a `--resource` login, or a login again of a profile that holds a resource (a
    /// step-up's `versola login --profile P --scope …`, A20, or a resource whose metadata now
    /// names another server); the options unchanged for any other.
    static func resolve(_ options: LoginOptions, saved: ProfileSettings?, context: CommandContext) async throws(VersolaError)
        -> Resolved
    {
        guard let resource = options.resource ?? saved?.resource else { return Resolved(options: options) }
        let registrations = FileClientRegistrations(
            directory: try context.directories().stateHome.appendingPathComponent("versola/registrations").path)
        var transport = TransportOptions()
        if let caFile = options.caFile { transport.caFile = caFile }
        // The API's own 401 names where its metadata is and the scopes it wants (RFC 9728 §5.1),
        // as an MCP client learns them; an API that answers otherwise leaves the well-known locations.
        var start =
            await challenge(at: resource, transport: transport).map { ResourceAuthorization(resource: resource, challenge: $0) }
            ?? ResourceAuthorization(resource: resource)
        start.transport = transport
        start.authorizationServer = options.issuer
        start.clientID = options.clientID
        // A client id given by hand (not one registered here) stays, and so does its server.
        if options.resource == nil, options.clientID == nil, let saved,
            (try? registrations.registration(for: saved.issuer))?.clientID != saved.clientID
        {
            start.clientID = saved.clientID
            start.authorizationServer = options.issuer ?? saved.issuer
        }
        if !options.scopes.isEmpty { start.challengeScopes = options.scopes.flatMap { $0.split(separator: " ").map(String.init) } }
        start.registrations = registrations
        if let document = options.clientMetadataURL {
            guard let url = URL(string: document), let origin = Origin(url: url),
                url.scheme == "https" || (url.scheme == "http" && origin.isLoopback), url.path.count > 1
            else {
                throw .configuration(
                    .invalidConfiguration("--client-metadata-url needs the https URL of the document, with a path: \(document)"))
            }
            start.clientMetadataDocument = document
        }
        let prepared = try await start.prepare()
        let configuration = prepared.configuration
        var resolved = options
        resolved.issuer = configuration.issuer
        resolved.clientID = configuration.clientID
        if resolved.port == nil, configuration.redirect.port != 0 { resolved.port = configuration.redirect.port }
        if resolved.redirectPath == nil { resolved.redirectPath = configuration.redirect.path }
        return Resolved(options: resolved, configuration: configuration, note: prepared.registered)
    }

    /// A19: a `login --resource` that would replace the sign-in of another resource (or a
    /// profile that is not a resource's) refuses unless the profile was named.
    /// - Throws: `.configuration(.invalidConfiguration)` saying how to go on.
    static func refuseReplacing(_ saved: ProfileSettings?, options: LoginOptions, context: CommandContext) throws(VersolaError) {
        guard let resource = options.resource, let saved, !context.invocation.global.profileGiven,
            !ResourceProfile.serves(saved.resource, url: resource)
        else { return }
        let profile = context.profile
        throw .configuration(
            .invalidConfiguration(
                "profile '\(profile)' holds the sign-in for \(saved.resource ?? saved.issuer), which a sign-in for \(resource) "
                    + "would replace: give --profile \(profile) to replace it, or another name with --profile"))
    }

    /// The challenge of the API's answer to a request without a token, when it is a 401.
    private static func challenge(at resource: String, transport: TransportOptions) async -> WWWAuthenticate? {
        guard let url = URL(string: resource),
            let answer = try? await CurlTransport().send(HTTPRequest(url: url), options: transport), answer.status == 401
        else { return nil }
        return WWWAuthenticate(headers: answer.headers)
    }
}
