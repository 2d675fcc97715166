import Foundation
import Versola

/// `versola login --resource URL` (A19): from the API's URL alone, its authorization server,
/// a registration where no client id is given (kept per server under the state directory, so
/// it happens once), the scopes, and the redirect port the registration named.
enum ResourceLogin {
    /// `options` with what the resource's metadata and the registration decided filled in, and
    /// a line for the person when a registration was made.
    static func resolve(_ options: LoginOptions, context: CommandContext) async throws(VersolaError)
        -> (options: LoginOptions, secret: ClientSecret?, note: String?)
    {
        guard let resource = options.resource else { return (options, nil, nil) }
        var start = ResourceAuthorization(resource: resource)
        start.authorizationServer = options.issuer
        start.clientID = options.clientID
        start.registrations = FileClientRegistrations(directory: try context.directories().stateHome.appendingPathComponent("versola/registrations").path)
        if let caFile = options.caFile { start.transport.caFile = caFile }
        let prepared = try await start.prepare()
        let configuration = prepared.configuration
        var resolved = options
        resolved.issuer = configuration.issuer
        resolved.clientID = configuration.clientID
        if resolved.scopes.isEmpty, !configuration.usesDefaultScopes { resolved.scopes = configuration.scopes }
        if resolved.port == nil, configuration.redirect.port != 0 { resolved.port = configuration.redirect.port }
        if resolved.redirectPath == nil { resolved.redirectPath = configuration.redirect.path }
        return (resolved, configuration.clientSecret, prepared.registered)
    }
}
