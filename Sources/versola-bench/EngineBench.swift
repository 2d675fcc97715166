import Foundation
import Versola
import VersolaTesting
import VersolaHTTP
import VersolaCrypto
import VersolaJOSE

/// `id_token_validate_rs256_per_s`: the full ID token validation of a realistic RS256 token
/// (parse, key by `kid` from a cached JWKS, signature, `iss`/`aud`/`azp`/`exp`/`iat`, `nonce`,
/// `at_hash`), through the public async API an application's login uses.
func engineBenchmarks(_ report: BenchReport) async throws {
    let issuer = "https://login.example.com/realms/main"
    let clientID = "versola-cli"
    let signingKey = try RSAPrivateKey(bits: 2048)
    let otherKey = try RSAPrivateKey(bits: 2048)
    let ecKey = try P256PrivateKey()
    let keySet = JWKSet(keys: [
        try JWK(material: .rsa(modulus: otherKey.modulus, exponent: otherKey.exponent), keyID: "2024-old", use: "sig"),
        try JWK(material: .ec(curve: .p256, x: ecKey.publicKey.x, y: ecKey.publicKey.y), keyID: "ec-1", use: "sig"),
        try JWK(material: .rsa(modulus: signingKey.modulus, exponent: signingKey.exponent), keyID: "2025-current", use: "sig"),
    ])
    let clock = ManualClock(wallClock: Date(timeIntervalSince1970: 1_800_000_030))
    let environment = EngineEnvironment(
        http: RetryingClient(transport: OfflineTransport(), clock: clock, random: SeededRandomSource(seed: 1)))
    let sender = EndpointSender(environment: environment)

    let configuration = ClientConfiguration(issuer: issuer, clientID: clientID)
    var document = JSONObject()
    document["issuer"] = .string(issuer)
    document["authorization_endpoint"] = .string(issuer + "/protocol/openid-connect/auth")
    document["token_endpoint"] = .string(issuer + "/protocol/openid-connect/token")
    document["jwks_uri"] = .string(issuer + "/protocol/openid-connect/certs")
    document["id_token_signing_alg_values_supported"] = ["RS256", "ES256", "PS256"]
    let metadata = try ProviderMetadata(document: document, configuredIssuer: issuer)
    let keys = JWKSCache(jwksURI: metadata.jwksURI!, sender: sender, keySet: keySet)
    let validator = IDTokenValidator(configuration: configuration, metadata: metadata, keys: keys, clock: clock)

    let accessToken = "eyJhbGciOiJSUzI1NiJ9.access-token-body-of-realistic-length-0123456789abcdef.signature"
    let idToken = try JWS.sign(
        header: ["typ": "JWT", "kid": "2025-current"],
        payload: [
            "iss": .string(issuer), "sub": "248289761001", "aud": .string(clientID),
            "exp": 1_800_000_600, "iat": 1_800_000_000, "auth_time": 1_799_999_990, "nonce": "n-0S6_WzA2Mj",
            "azp": .string(clientID),
            "at_hash": .string(IDTokenValidator.accessTokenHash(accessToken, algorithm: .rs256)),
            "sid": "2c9d6a40-0c53-4f9a-9e8a-1d4f6b1f2a3c", "email": "jane.doe@example.com", "email_verified": true,
            "name": "Jane Doe", "preferred_username": "jane", "given_name": "Jane", "family_name": "Doe", "acr": "1",
        ],
        signer: .rsa(signingKey, algorithm: .rs256))
    let budget = try OperationBudget(clock: clock)

    // Checked once, so a broken setup reports a failure rather than a rate of failures.
    _ = try await validator.validate(idToken, nonce: "n-0S6_WzA2Mj", accessToken: accessToken, budget: budget)

    let peer = try OpenSSLPeer()
    try await report.paired(
        "id_token_validate_rs256_per_s", peer: "peer_rsa2048_verify_per_s", target: 0.85,
        ours: {
            let claims = try await validator.validate(idToken, nonce: "n-0S6_WzA2Mj", accessToken: accessToken, budget: budget)
            return claims.subject.utf8.count
        }, peer: peer.rsaVerify)
}

/// A transport for measurements that must not touch the network: every request fails unsent.
private struct OfflineTransport: HTTPTransport {
    func send(_ request: HTTPRequest, options: TransportOptions) async throws(TransportError) -> HTTPResponse {
        guard let origin = request.origin else { throw .invalidRequest(reason: "no origin") }
        throw .couldNotConnect(origin: origin)
    }
}
