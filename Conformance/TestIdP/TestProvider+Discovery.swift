import VersolaHTTP
import VersolaJOSE

extension TestProvider {
    /// The discovery document (OpenID Connect Discovery 1.0 §3, RFC 8414).
    func discoveryResponse() -> HTTPServerResponse {
        let wrong = takeFault(.discovery, .wrongIssuer)
        var document = JSONObject()
        document["issuer"] = .string(wrong ? issuer + "/impostor" : configuration.publishedIssuer ?? issuer)
        // A plain OAuth 2.0 server (RFC 8414 metadata) signs no ID tokens and has no UserInfo.
        let openID = configuration.metadata == .openIDConfiguration
        document["authorization_endpoint"] = .string(url(of: .authorize))
        document["token_endpoint"] = .string(url(of: .token))
        if openID {
            document["userinfo_endpoint"] = .string(url(of: .userinfo))
            document["jwks_uri"] = .string(url(of: .jwks))
            document["end_session_endpoint"] = .string(url(of: .endSession))
        }
        document["revocation_endpoint"] = .string(url(of: .revocation))
        if configuration.dynamicRegistration { document["registration_endpoint"] = .string(url(of: .registration)) }
        if configuration.clientIDMetadataDocuments { document["client_id_metadata_document_supported"] = true }
        if configuration.advertisePushedAuthorizationRequests {
            document["pushed_authorization_request_endpoint"] = .string(url(of: .par))
        }
        document["require_pushed_authorization_requests"] = .bool(configuration.requirePushedAuthorizationRequests)
        document["response_types_supported"] = .array(configuration.responseTypesSupported.map { .string($0) })
        document["response_modes_supported"] = ["query"]
        if configuration.advertiseDeviceAuthorization {
            document["device_authorization_endpoint"] = .string(url(of: .deviceAuthorization))
            document["grant_types_supported"] = ["authorization_code", "refresh_token", .string(Self.deviceCodeGrantType)]
        } else {
            document["grant_types_supported"] = ["authorization_code", "refresh_token"]
        }
        if openID {
            document["subject_types_supported"] = ["public"]
            document["id_token_signing_alg_values_supported"] = .array(
                configuration.idTokenSigningAlgorithmsSupported.map { .string($0) })
            document["claims_supported"] = ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "acr", "name", "email"]
        }
        if let methods = configuration.codeChallengeMethodsSupported {
            document["code_challenge_methods_supported"] = .array(methods.map { .string($0) })
        }
        document["token_endpoint_auth_methods_supported"] = .array(configuration.tokenEndpointAuthMethods.map { .string($0) })
        document["revocation_endpoint_auth_methods_supported"] = .array(
            configuration.tokenEndpointAuthMethods.map { .string($0) })
        let scopes =
            configuration.scopesSupported
            ?? (configuration.advertiseOfflineAccess
                ? ["openid", "profile", "email", "offline_access"] : ["openid", "profile", "email"])
        document["scopes_supported"] = .array(scopes.map { .string($0) })
        if configuration.advertiseDPoP {
            document["dpop_signing_alg_values_supported"] = ["ES256", "RS256", "PS256", "EdDSA"]
        }
        if configuration.advertiseIssuerParameter {
            document["authorization_response_iss_parameter_supported"] = true
        }
        return HTTPServerResponse(
            status: 200, headers: ["Content-Type": "application/json"], body: JSONValue.object(document).serializedBytes())
    }

    // MARK: Administration

    /// `POST {issuer}/_admin/faults` (a fault plan as JSON), `POST …/_admin/clear-faults`,
    /// `GET …/_admin/requests` (the log as JSON), `POST …/_admin/rotate-keys`.
    func admin(_ request: HTTPServerRequest) -> HTTPServerAction {
        let command = String(request.path.dropFirst(routePath.count + TestEndpoint.admin.path.count + 1))
        switch (request.method, command) {
        case ("POST", "faults"):
            do {
                arm(try TestFaultPlan(json: String(decoding: request.body, as: UTF8.self)))
                return jsonAnswer(["armed": .integer(Int64(faultRules.count))])
            } catch {
                return jsonAnswer(["error": .string(error.description)], status: 400)
            }
        case ("POST", "clear-faults"):
            clearFaults()
            return jsonAnswer(["armed": 0])
        case ("POST", "rotate-keys"):
            do {
                try rotateSigningKeys()
                return jsonAnswer(["generation": .integer(Int64(signingKeys.generation))])
            } catch {
                return jsonAnswer(["error": "key generation failed"], status: 500)
            }
        case ("GET", "requests"):
            let entries: [JSONValue] = log.map { entry in
                [
                    "endpoint": entry.endpoint.map { .string($0.rawValue) } ?? .null,
                    "method": .string(entry.method),
                    "target": .string(entry.target),
                    "at": .double(entry.receivedAt.timeIntervalSince1970),
                ]
            }
            return jsonAnswer(["requests": .array(entries)])
        default:
            return .respond(HTTPServerResponse(status: 404))
        }
    }
}
