import VersolaHTTP
import Foundation
import VersolaJOSE

/// RFC 7591 dynamic client registration, as a public native client (A19): loopback redirect
/// URIs, `token_endpoint_auth_method: none` (servers otherwise make a secret-holding client),
/// and `refresh_token` among the grant types (servers otherwise drop it).
struct ClientRegistrationEndpoint: Sendable {
    let url: URL
    let sender: EndpointSender

    /// Registers a client and returns what the server made of it.
    /// - Throws: `.configuration(.invalidConfiguration)` for a refusal, with the server's
    ///   `error_description` (E14); `.recoverable` when nothing usable answered.
    func register(
        issuer: String, redirectURI: String, clientName: String, scope: String?, budget: OperationBudget
    ) async throws(VersolaError) -> RegisteredClient {
        var metadata: JSONObject = [
            "client_name": .string(clientName), "redirect_uris": [.string(redirectURI)],
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            "token_endpoint_auth_method": "none", "application_type": "native",
        ]
        if let scope { metadata["scope"] = .string(scope) }
        var request = HTTPRequest(method: .post, url: url, body: JSONValue.object(metadata).serializedBytes())
        request.headers.add("Content-Type", "application/json")
        request.headers.add("Accept", "application/json")
        // A registration the server processed may have made a client: never repeated (R4's rule).
        let response = try await sender.send(request, kind: .codeExchange, budget: budget)
        guard response.isSuccess else {
            let said = OAuthErrorResponse(body: response.body)
            throw .configuration(
                .invalidConfiguration(
                    "the authorization server refused to register versola (status \(response.status)); register a "
                        + "client there yourself and give its id with --client-id", provider: said?.providerError))
        }
        guard let json = try? JSONValue(parsing: response.body), let clientID = json["client_id"]?.string,
            !clientID.isEmpty
        else {
            throw .recoverable(
                .server(
                    ServerFailure(
                        status: response.status, failedRequests: budget.failedRequests, elapsed: budget.elapsed,
                        errorDescription: "the registration answer has no client_id")))
        }
        let grants = json["grant_types"]?.array?.compactMap(\.string)
        let registeredURIs = json["redirect_uris"]?.array?.compactMap(\.string) ?? [redirectURI]
        return RegisteredClient(
            issuer: issuer, clientID: clientID,
            clientSecret: json["client_secret"]?.string.flatMap { $0.isEmpty ? nil : ClientSecret($0) },
            redirectURI: registeredURIs.contains(redirectURI) ? redirectURI : registeredURIs.first ?? redirectURI,
            refreshGranted: grants?.contains("refresh_token") ?? true, scope: json["scope"]?.string ?? scope)
    }
}
