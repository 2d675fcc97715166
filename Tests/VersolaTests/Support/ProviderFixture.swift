import Foundation
import Versola
import VersolaHTTP
import VersolaCrypto
import VersolaJOSE

/// The made-up provider that engine tests script a ``ScriptedTransport`` with: fixed URLs, real
/// signing keys, a discovery document, a key set and signed ID tokens (``EngineHarness`` wires
/// the transport and a ``ManualClock`` into an ``EngineEnvironment``).
enum ProviderFixture {
    static let issuer = "https://idp.example/realms/main"
    static let clientID = "versola-test"
    static let discoveryPath = "/realms/main/.well-known/openid-configuration"
    static let jwksPath = "/realms/main/certs"
    static let tokenPath = "/realms/main/token"
    static let userInfoPath = "/realms/main/userinfo"
    static let revocationPath = "/realms/main/revoke"
    static let redirectURI = "http://127.0.0.1:49152/callback"

    /// The signing keys, made once per test process.
    struct Keys: Sendable {
        let rsa1: RSAPrivateKey
        let rsa2: RSAPrivateKey
        let ec1: P256PrivateKey

        func jwk(_ name: String) throws -> JWK {
            switch name {
            case "rsa-1": try JWK(material: .rsa(modulus: rsa1.modulus, exponent: rsa1.exponent), keyID: "rsa-1", use: "sig")
            case "rsa-2": try JWK(material: .rsa(modulus: rsa2.modulus, exponent: rsa2.exponent), keyID: "rsa-2", use: "sig")
            default: try JWK(material: .ec(curve: .p256, x: ec1.publicKey.x, y: ec1.publicKey.y), keyID: "ec-1", use: "sig")
            }
        }
    }

    private static let generated: Result<Keys, CryptoError> = Result { () throws(CryptoError) -> Keys in
        Keys(rsa1: try RSAPrivateKey(bits: 2048), rsa2: try RSAPrivateKey(bits: 2048), ec1: try P256PrivateKey())
    }

    static func keys() throws -> Keys { try generated.get() }

    /// The JWKS document with the named keys (`rsa-1`, `rsa-2`, `ec-1`).
    static func jwks(_ names: [String] = ["rsa-1", "ec-1"]) throws -> String {
        let keys = try keys()
        let values = try names.map { try keys.jwk($0).jsonValue }
        return JSONValue.object(["keys": .array(values)]).serialized()
    }

    /// The discovery document's members; `changes` replaces (or, with `nil`, removes) members.
    static func discoveryObject(_ changes: [String: JSONValue?] = [:]) -> JSONObject {
        let base = "https://idp.example/realms/main"
        var object: JSONObject = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(base + "/auth"),
            "token_endpoint": .string(base + "/token"),
            "jwks_uri": .string(base + "/certs"),
            "userinfo_endpoint": .string(base + "/userinfo"),
            "revocation_endpoint": .string(base + "/revoke"),
            "end_session_endpoint": .string(base + "/logout"),
            "pushed_authorization_request_endpoint": .string(base + "/par"),
            "code_challenge_methods_supported": ["plain", "S256"],
            "dpop_signing_alg_values_supported": ["ES256", "RS256"],
            "id_token_signing_alg_values_supported": ["RS256", "ES256", "HS256"],
            "authorization_response_iss_parameter_supported": true,
            "response_types_supported": ["code"],
        ]
        for (name, value) in changes { object[name] = value ?? nil }
        return object
    }

    static func discovery(_ changes: [String: JSONValue?] = [:]) -> String {
        JSONValue.object(discoveryObject(changes)).serialized()
    }

    static func metadata(_ changes: [String: JSONValue?] = [:]) throws -> ProviderMetadata {
        try ProviderMetadata(document: discoveryObject(changes), configuredIssuer: issuer)
    }

    static func configuration() -> ClientConfiguration {
        ClientConfiguration(issuer: issuer, clientID: clientID)
    }

    /// Standard ID token claims at `now`: iat now, exp in 5 minutes, nonce `n-1`.
    static func claims(now: Date, _ changes: [String: JSONValue?] = [:]) -> JSONObject {
        let seconds = Int64(now.timeIntervalSince1970)
        var object: JSONObject = [
            "iss": .string(issuer), "sub": "user-42", "aud": .string(clientID), "exp": .integer(seconds + 300),
            "iat": .integer(seconds), "auth_time": .integer(seconds - 5), "nonce": "n-1", "name": "Jane Doe",
            "email": "jane@example.com", "preferred_username": "jane", "acr": "1",
        ]
        for (name, value) in changes { object[name] = value ?? nil }
        return object
    }

    /// Signs claims with a key (`rsa-1`, `rsa-2` or `ec-1`); `kid` is the header's (nil: none).
    static func idToken(
        _ claims: JSONObject, key: String = "rsa-1", kid: String?? = .none, algorithm: SignatureAlgorithm? = nil
    ) throws -> String {
        let keys = try keys()
        let signer: JWSSigner =
            switch key {
            case "rsa-1": .rsa(keys.rsa1, algorithm: algorithm ?? .rs256)
            case "rsa-2": .rsa(keys.rsa2, algorithm: algorithm ?? .rs256)
            default: .es256(keys.ec1)
            }
        var header: JSONObject = ["typ": "JWT"]
        switch kid {
        case .none: header["kid"] = .string(key)
        case .some(.none): break
        case .some(.some(let value)): header["kid"] = .string(value)
        }
        return try JWS.sign(header: header, payload: .object(claims), signer: signer)
    }

    /// A token whose header is chosen freely and whose signature is arbitrary bytes.
    static func unsignedToken(header: JSONObject, claims: JSONObject) -> String {
        Base64URL.encode(JSONValue.object(header).serializedBytes()) + "."
            + Base64URL.encode(JSONValue.object(claims).serializedBytes()) + "." + Base64URL.encode([1, 2, 3])
    }
}
