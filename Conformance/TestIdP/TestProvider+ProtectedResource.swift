import Foundation
import VersolaHTTP
import VersolaJOSE

/// A protected resource and its authorization server as the current specifications have them
/// (RFC 9728 metadata, RFC 8707 resource indicators, RFC 7591 registration, and the Model Context
/// Protocol's authorization rules that combine them), for the resource-first sign-in (A19).
extension TestProvider {
    /// The identifiers of the protected resources: the resource server's origin and each path.
    var protectedResources: [String] {
        let base = resourceBaseURL ?? issuerOrigin
        return configuration.protectedResourcePaths.map { base + $0 }
    }

    /// The identifier of the resource a request to `path` on the resource server reached: the
    /// resource's own path or one below it (`/mcp/tools/list` is part of `/mcp`).
    func protectedResource(atPath path: String) -> String? {
        protectedResources.first { resource in
            guard let own = URLComponents(string: resource)?.path else { return false }
            return path == own || path.hasPrefix(own + "/")
        }
    }

    /// The identifier a protected resource's metadata names for it: its own, or the origin
    /// where the metadata is at the root (as MCP servers built on the Python SDK have it).
    func advertisedResource(for resource: String) -> String {
        if let named = configuration.protectedResourceMetadataNames { return named }
        guard case .root = configuration.protectedResourceMetadata else { return resource }
        return resourceBaseURL ?? issuerOrigin
    }

    /// `GET /.well-known/oauth-protected-resource{path}` (RFC 9728 §3.1), or the one location
    /// the configuration puts it at.
    func protectedResourceMetadata(_ request: HTTPServerRequest) -> HTTPServerAction {
        guard let resource = metadataResource(servedAt: request.path) else { return .respond(HTTPServerResponse(status: 404)) }
        let document: JSONValue = [
            "resource": .string(advertisedResource(for: resource)), "authorization_servers": .array((configuration.protectedResourceAuthorizationServers ?? [issuer]).map { .string($0) }),
            "scopes_supported": .array(configuration.protectedResourceScopes.map { .string($0) }),
            "bearer_methods_supported": ["header"],
        ]
        return jsonAnswer(document)
    }

    /// The resource whose metadata is served at `path`, or nil for none there.
    private func metadataResource(servedAt path: String) -> String? {
        let wellKnown = TestEndpoint.resourceMetadata.path
        switch configuration.protectedResourceMetadata {
        case .pathInserted:
            let rest = String(path.dropFirst(wellKnown.count))
            guard path.hasPrefix(wellKnown), let resource = protectedResource(atPath: rest),
                URLComponents(string: resource)?.path == rest
            else { return nil }
            return resource
        case .root: return path == wellKnown ? protectedResources.first : nil
        case .custom(let location): return path == location ? protectedResources.first : nil
        case .none: return nil
        }
    }

    /// Whether `path` is where the configuration serves metadata on the resource's listener.
    func servesResourceMetadata(atPath path: String) -> Bool {
        if case .custom(let location) = configuration.protectedResourceMetadata, location == path { return true }
        return path.hasPrefix(TestEndpoint.resourceMetadata.path)
    }

    /// The 401 of a protected resource without a usable token (RFC 9728 §5.1).
    func resourceMetadataChallenge(for resource: String, error: String?) -> HTTPServerAction {
        let path = URLComponents(string: resource)?.path ?? ""
        let base = String(resource.dropLast(path.count))
        var parameters: [(String, String)] = []
        if configuration.challengeNamesResourceMetadata {
            switch configuration.protectedResourceMetadata {
            case .pathInserted: parameters.append(("resource_metadata", base + TestEndpoint.resourceMetadata.path + path))
            case .root: parameters.append(("resource_metadata", base + TestEndpoint.resourceMetadata.path))
            case .custom(let location):
                parameters.append(("resource_metadata", location.hasPrefix("/") ? base + location : location))
            case .none: break
            }
        }
        if configuration.challengeNamesScope {
            parameters.append(("scope", configuration.protectedResourceScopes.joined(separator: " ")))
        }
        if let error { parameters.append(("error", error)) }
        let value = parameters.isEmpty ? "Bearer" : "Bearer " + parameters.map { "\($0.0)=\"\($0.1)\"" }.joined(separator: ", ")
        return .respond(HTTPServerResponse(status: 401, headers: ["WWW-Authenticate": value, "Cache-Control": "no-store"]))
    }

    /// The 403 (or the configured 401) of a protected resource whose token lacks a scope it
    /// requires (RFC 6750 §3.1), naming them all, as an MCP server asks for a step-up; nil when
    /// the token holds them.
    func insufficientScope(_ record: AccessTokenRecord, for resource: String) -> HTTPServerAction? {
        let required = configuration.protectedResourceRequiredScopes
        let held = Set(record.scope.split(separator: " ").map(String.init))
        guard configuration.protectedResourceNeverSatisfied || !required.allSatisfy(held.contains) else { return nil }
        let path = URLComponents(string: resource)?.path ?? ""
        let metadata = String(resource.dropLast(path.count)) + TestEndpoint.resourceMetadata.path + path
        let value = "Bearer error=\"insufficient_scope\", scope=\"\(required.joined(separator: " "))\", resource_metadata=\"\(metadata)\""
        let status = configuration.protectedResourceInsufficientScopeStatus
        return .respond(HTTPServerResponse(status: status, headers: ["WWW-Authenticate": value, "Cache-Control": "no-store"]))
    }

    /// Makes the client of a client ID metadata document known before its authorization
    /// request is answered: the document at the client id's URL, whose `client_id` must be that
    /// URL; an unreadable or mismatched document leaves the client unknown (the request is refused).
    func adoptClientMetadataDocument(_ request: HTTPServerRequest) async {
        guard configuration.clientIDMetadataDocuments, request.method == "GET",
            let id = request.queryItems.first(where: { $0.name == "client_id" })?.value, configuration.client(id) == nil,
            let url = URL(string: id), url.scheme == "https" || url.scheme == "http"
        else { return }
        guard let answer = try? await CurlTransport().send(HTTPRequest(url: url), options: TransportOptions()),
            answer.status == 200, let document = try? JSONValue(parsing: answer.body), document["client_id"]?.string == id
        else { return }
        let redirects = document["redirect_uris"]?.array?.compactMap(\.string) ?? []
        guard !redirects.isEmpty, configuration.client(id) == nil else { return }
        addClient(TestClient(id: id, redirectURIs: redirects, allowsAnyLoopbackPort: true, secret: nil))
    }

    /// `POST /register` (RFC 7591 §3): a client as the request describes it, with the defaults
    /// servers apply when a member is missing.
    func register(_ request: HTTPServerRequest) -> HTTPServerAction {
        guard configuration.dynamicRegistration else { return .respond(HTTPServerResponse(status: 404)) }
        guard request.method == "POST", let json = try? JSONValue(parsing: request.body), case .object(let body) = json else {
            return oauthError("invalid_client_metadata", "the body is not a JSON object")
        }
        let redirects = body["redirect_uris"]?.array?.compactMap(\.string) ?? []
        guard !redirects.isEmpty, redirects.allSatisfy({ URL(string: $0)?.scheme != nil }) else {
            return oauthError("invalid_redirect_uri", "redirect_uris is missing or malformed")
        }
        var method = body["token_endpoint_auth_method"]?.string ?? "client_secret_basic"
        if configuration.registrationIssuesSecret { method = configuration.tokenEndpointAuthMethods.first ?? "client_secret_basic" }
        let grants = body["grant_types"]?.array?.compactMap(\.string) ?? ["authorization_code"]
        var client = TestClient(
            id: "dyn-" + opaqueValue().prefix(16), redirectURIs: redirects, allowsAnyLoopbackPort: false,
            secret: method == "none" ? nil : opaqueValue())
        client.refreshAllowed = grants.contains("refresh_token")
        addClient(client)
        var answer: JSONObject = [
            "client_id": .string(client.id), "redirect_uris": .array(redirects.map { .string($0) }),
            "grant_types": .array(grants.map { .string($0) }), "token_endpoint_auth_method": .string(method),
            "client_id_issued_at": .integer(Int64(now().timeIntervalSince1970)),
        ]
        if let secret = client.secret {
            answer["client_secret"] = .string(secret)
            answer["client_secret_expires_at"] = 0
        }
        if let name = body["client_name"]?.string { answer["client_name"] = .string(name) }
        return jsonAnswer(.object(answer), status: 201)
    }

    /// The resource a request names, checked (RFC 8707 §2): nil and no refusal when none is
    /// required; `invalid_target` for one the server does not protect.
    func checkedResource(_ named: String?) -> (resource: String?, refusal: String?) {
        guard configuration.requireResourceIndicator else { return (named, nil) }
        guard let named else { return (nil, "resource is required (RFC 8707)") }
        guard protectedResources.map(advertisedResource(for:)).contains(named) else {
            return (nil, "unknown resource \(named)")
        }
        return (named, nil)
    }
}
