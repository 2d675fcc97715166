import VersolaCrypto
import VersolaJOSE

/// `jws_parse_verify_rs256_per_s` (parse a compact RS256 ID token, pick its key from a JWKS by
/// `kid`, verify) and `json_parse_discovery_per_s` (parse a realistic discovery document).
func joseBenchmarks(_ report: BenchReport) async throws {
    let signingKey = try RSAPrivateKey(bits: 2048)
    let otherKey = try RSAPrivateKey(bits: 2048)
    let ecKey = try P256PrivateKey()
    let keySet = JWKSet(keys: [
        try JWK(material: .rsa(modulus: otherKey.modulus, exponent: otherKey.exponent), keyID: "2024-old", use: "sig", algorithm: "RS256"),
        try JWK(material: .ec(curve: .p256, x: ecKey.publicKey.x, y: ecKey.publicKey.y), keyID: "ec-1", use: "sig"),
        try JWK(material: .rsa(modulus: signingKey.modulus, exponent: signingKey.exponent), keyID: "2025-current", use: "sig", algorithm: "RS256"),
    ])
    let idToken = try JWS.sign(
        header: ["typ": "JWT", "kid": "2025-current"],
        payload: [
            "iss": "https://login.example.com/realms/main", "sub": "248289761001", "aud": "versola-cli",
            "exp": 1_800_000_600, "iat": 1_800_000_000, "auth_time": 1_799_999_990, "nonce": "n-0S6_WzA2Mj",
            "azp": "versola-cli", "at_hash": "MTIzNDU2Nzg5MDEyMzQ1Ng", "sid": "2c9d6a40-0c53-4f9a-9e8a-1d4f6b1f2a3c",
            "email": "jane.doe@example.com", "email_verified": true, "name": "Jane Doe",
            "preferred_username": "jane", "given_name": "Jane", "family_name": "Doe", "acr": "1",
        ],
        signer: .rsa(signingKey, algorithm: .rs256))
    let allowed: Set<SignatureAlgorithm> = [.rs256, .es256]
    let peer = try OpenSSLPeer()
    await report.paired(
        "jws_parse_verify_rs256_per_s", peer: "peer_rsa2048_verify_per_s", target: nil,
        ours: {
            guard let jws = try? JWS(compact: idToken), let key = try? jws.verify(using: keySet, allowedAlgorithms: allowed)
            else { return 0 }
            return key.keyID?.utf8.count ?? 1
        }, peer: peer.rsaVerify)

    let discovery = Array(discoveryDocument.utf8)
    report.rate("json_parse_discovery_per_s") {
        (try? JSONValue(parsing: discovery))?["issuer"]?.string?.utf8.count ?? 0
    }
}

/// A discovery document shaped like a common provider's (about 2 KB).
private let discoveryDocument = """
    {
      "issuer": "https://login.example.com/realms/main",
      "authorization_endpoint": "https://login.example.com/realms/main/protocol/openid-connect/auth",
      "token_endpoint": "https://login.example.com/realms/main/protocol/openid-connect/token",
      "introspection_endpoint": "https://login.example.com/realms/main/protocol/openid-connect/token/introspect",
      "userinfo_endpoint": "https://login.example.com/realms/main/protocol/openid-connect/userinfo",
      "end_session_endpoint": "https://login.example.com/realms/main/protocol/openid-connect/logout",
      "jwks_uri": "https://login.example.com/realms/main/protocol/openid-connect/certs",
      "revocation_endpoint": "https://login.example.com/realms/main/protocol/openid-connect/revoke",
      "pushed_authorization_request_endpoint": "https://login.example.com/realms/main/protocol/openid-connect/ext/par/request",
      "device_authorization_endpoint": "https://login.example.com/realms/main/protocol/openid-connect/auth/device",
      "grant_types_supported": ["authorization_code", "implicit", "refresh_token", "password", "client_credentials",
        "urn:ietf:params:oauth:grant-type:device_code", "urn:openid:params:grant-type:ciba"],
      "response_types_supported": ["code", "none", "id_token", "token", "id_token token", "code id_token",
        "code token", "code id_token token"],
      "response_modes_supported": ["query", "fragment", "form_post", "query.jwt", "fragment.jwt", "form_post.jwt", "jwt"],
      "subject_types_supported": ["public", "pairwise"],
      "id_token_signing_alg_values_supported": ["PS384", "ES384", "RS384", "HS256", "HS512", "ES256", "RS256",
        "HS384", "ES512", "PS256", "PS512", "RS512", "EdDSA"],
      "userinfo_signing_alg_values_supported": ["PS384", "ES384", "RS384", "ES256", "RS256", "ES512", "PS256",
        "PS512", "RS512", "EdDSA", "none"],
      "dpop_signing_alg_values_supported": ["PS384", "ES384", "RS384", "ES256", "RS256", "ES512", "PS256", "PS512",
        "RS512", "EdDSA"],
      "code_challenge_methods_supported": ["plain", "S256"],
      "scopes_supported": ["openid", "profile", "email", "address", "phone", "offline_access", "roles",
        "web-origins", "acr", "basic", "microprofile-jwt"],
      "claims_supported": ["aud", "sub", "iss", "auth_time", "name", "given_name", "family_name",
        "preferred_username", "email", "acr"],
      "token_endpoint_auth_methods_supported": ["private_key_jwt", "client_secret_basic", "client_secret_post",
        "tls_client_auth", "client_secret_jwt"],
      "claims_parameter_supported": true,
      "request_parameter_supported": true,
      "request_uri_parameter_supported": true,
      "require_request_uri_registration": true,
      "require_pushed_authorization_requests": false,
      "authorization_response_iss_parameter_supported": true,
      "backchannel_logout_supported": true,
      "backchannel_logout_session_supported": true,
      "frontchannel_logout_supported": true,
      "tls_client_certificate_bound_access_tokens": true,
      "mtls_endpoint_aliases": {
        "token_endpoint": "https://login.example.com/realms/main/protocol/openid-connect/token",
        "revocation_endpoint": "https://login.example.com/realms/main/protocol/openid-connect/revoke",
        "userinfo_endpoint": "https://login.example.com/realms/main/protocol/openid-connect/userinfo"
      }
    }
    """
