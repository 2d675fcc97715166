import Foundation
import Versola
import VersolaCrypto
import VersolaHTTP
import VersolaJOSE
import VersolaTesting

// libFuzzer entry point for ID token validation (A7) against a fixed key set, without any
// fetch. The first byte picks how the rest becomes a token:
//   0: the rest is the compact token itself (header, payload and signature all fuzzed);
//   1: the rest is the payload, signed ES256 with the key set's `ec-1` key, so the claim
//      checks behind the signature are reached;
//   2: the rest is a header JSON object, a newline, then the payload, signed ES256 as above.
// Every token is validated fresh and as a refresh of a fixed earlier token. Whatever is
// accepted must satisfy OIDC Core §3.1.3.7: the issuer, the audience, the clock, the nonce,
// `azp`, and after a refresh the same `iss`, `sub` and `aud`. A broken invariant traps on purpose.

private let issuer = "https://idp.example/realms/main"
private let clientID = "versola-test"
private let now = Date(timeIntervalSince1970: 1_735_689_600)
private let toleranceSeconds: Double = 60

/// The signing key of `ec-1`: a fixed P-256 scalar.
private let signingScalar: [UInt8] = (0..<32).map { UInt8(($0 &* 37 &+ 11) & 0xFF) }

/// The fixed parts of a validation, built once. The key set is kept as text and parsed per
/// input, and a validator is made per input: LeakSanitizer cannot see array pointers stored in
/// an enum payload's spare bits (the JWK material), so a key set held in a global, or in the
/// key choice a global validator remembers, is reported as a leak.
private struct ValidationFixture {
    let signer: JWSSigner
    let keysText: String
    let makeValidator: @Sendable () -> IDTokenValidator
    let previous: IDTokenClaims

    var validator: IDTokenValidator { makeValidator() }

    init?() {
        guard let ecKey = try? P256PrivateKey(rawRepresentation: signingScalar) else { return nil }
        let x = Base64URL.encode(ecKey.publicKey.x)
        let y = Base64URL.encode(ecKey.publicKey.y)
        // ec-1 signs; rsa-1 (RFC 7515 A.2) and ed-1 (RFC 8037) only verify; ec-any has no kid.
        let keysText = """
            {"keys":[
            {"kty":"EC","kid":"ec-1","crv":"P-256","x":"\(x)","y":"\(y)","use":"sig"},
            {"kty":"RSA","kid":"rsa-1","alg":"RS256","n":"ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ","e":"AQAB"},
            {"kty":"OKP","kid":"ed-1","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
            {"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}
            ]}
            """
        let discovery = """
            {"issuer":"\(issuer)","authorization_endpoint":"https://idp.example/auth",
            "token_endpoint":"https://idp.example/token","jwks_uri":"https://idp.example/certs",
            "id_token_signing_alg_values_supported":["RS256","PS256","ES256","EdDSA","HS256","none"]}
            """
        guard let keySet = try? JWKSet(parsing: keysText), keySet.keys.count == 4,
            let metadata = try? ProviderMetadata(parsing: Array(discovery.utf8), configuredIssuer: issuer),
            let jwksURI = metadata.jwksURI
        else { return nil }
        let clock = ManualClock(wallClock: now)
        let http = RetryingClient(transport: NoNetwork(), clock: clock, random: SeededRandomSource(seed: 1))
        let sender = EndpointSender(environment: EngineEnvironment(http: http))
        var configuration = ClientConfiguration(issuer: issuer, clientID: clientID)
        configuration.clockTolerance = .seconds(Int64(toleranceSeconds))
        let keyCache = JWKSCache(jwksURI: jwksURI, sender: sender)
        let configured = configuration
        let makeValidator = { @Sendable in
            IDTokenValidator(configuration: configured, metadata: metadata, keys: keyCache, clock: clock)
        }
        let validator = makeValidator()
        let signer = JWSSigner.es256(ecKey)
        let seconds = Int64(now.timeIntervalSince1970)
        let claims: JSONValue = [
            "iss": .string(issuer), "sub": "user-42", "aud": .string(clientID), "exp": .integer(seconds + 300),
            "iat": .integer(seconds), "nonce": "n-1",
        ]
        guard let token = try? JWS.sign(header: ["alg": "ES256", "kid": "ec-1"], payload: claims, signer: signer),
            let previous = try? validator.validate(token, keySet: keySet, nonce: "n-1", accessToken: nil)
        else { return nil }
        self.signer = signer
        self.keysText = keysText
        self.makeValidator = makeValidator
        self.previous = previous
    }
}

/// Set `VERSOLA_FUZZ_VERBOSE=1` to print each outcome (when checking seeds by hand).
private let verbose = ProcessInfo.processInfo.environment["VERSOLA_FUZZ_VERBOSE"] == "1"

/// Built once; nil only when the fixed material is broken, which the first input reports.
private let fixture = ValidationFixture()

/// libFuzzer entry point: the first byte picks how the rest becomes a token.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let fixture else { finding("the fixed keys, metadata or first token do not build") }
    guard size > 0 else { return 0 }
    let rest = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let token: String?
    switch data[0] % 3 {
    case 0:
        token = String(decoding: rest, as: UTF8.self)
    case 1:
        token = try? JWS.sign(header: ["alg": "ES256", "kid": "ec-1"], payload: rest, signer: fixture.signer)
    default:
        let split = rest.firstIndex(of: 0x0A) ?? rest.endIndex
        guard let header = (try? JSONValue(parsing: rest[..<split]))?.object else { return 0 }
        let payload = split < rest.endIndex ? Array(rest[(split + 1)...]) : []
        token = try? JWS.sign(header: header, payload: payload, signer: fixture.signer)
    }
    guard let token else { return 0 }
    guard let keySet = try? JWKSet(parsing: fixture.keysText) else { finding("the fixed key set does not parse") }
    let validator = fixture.validator
    for previous in [nil, fixture.previous] {
        for nonce in ["n-1", nil] {
            check(token, validator: validator, keySet: keySet, nonce: nonce, previous: previous)
        }
    }
    return 0
}

/// A finding: an invariant of the code under test does not hold.
private func finding(_ what: String) -> Never {
    fatalError("invariant broken: \(what)")
}

private func check(
    _ token: String, validator: IDTokenValidator, keySet: JWKSet, nonce: String?, previous: IDTokenClaims?
) {
    let claims: IDTokenClaims
    do {
        claims = try validator.validate(
            token, keySet: keySet, nonce: nonce, accessToken: "access-token-1", previous: previous)
    } catch {
        guard case .configuration(.idTokenRejected(let rejection)) = error else { finding("a bad ID token gave \(error)") }
        if verbose { print("rejected: \(rejection.kind.rawValue): \(rejection.detail)") }
        return
    }
    if verbose { print("accepted: sub \(claims.subject)") }
    let current = now.timeIntervalSince1970
    if claims.issuer != issuer { finding("accepted another issuer") }
    if claims.subject.isEmpty { finding("accepted an empty sub") }
    if !claims.audiences.contains(clientID) { finding("accepted without the client in aud") }
    if claims.audiences.count > 1, claims.claims.object["azp"]?.string != clientID {
        finding("accepted several audiences without azp")
    }
    if let azp = claims.claims.object["azp"], azp.string != clientID { finding("accepted another azp") }
    if claims.expiration.timeIntervalSince1970 + toleranceSeconds <= current { finding("accepted an expired token") }
    if claims.issuedAt.timeIntervalSince1970 - toleranceSeconds > current { finding("accepted a future iat") }
    if let notBefore = claims.claims.object["nbf"]?.double, notBefore - toleranceSeconds > current {
        finding("accepted before nbf")
    }
    if let nonce, claims.claims.object["nonce"]?.string != nonce { finding("accepted another nonce") }
    if let atHash = claims.claims.object["at_hash"] {
        guard let algorithm = (try? JWS(compact: token))?.algorithm,
            atHash.string == IDTokenValidator.accessTokenHash("access-token-1", algorithm: algorithm)
        else { finding("accepted a wrong at_hash") }
    }
    if let previous {
        if claims.subject != previous.subject || claims.issuer != previous.issuer
            || Set(claims.audiences) != Set(previous.audiences)
        {
            finding("a refresh accepted another identity")
        }
    }
    if claims.description.contains(token) { finding("the raw token shows in the claims' description") }
}

/// A transport that never sends: validation here must not fetch.
private struct NoNetwork: HTTPTransport {
    func send(_ request: HTTPRequest, options: TransportOptions) async throws(TransportError) -> HTTPResponse {
        throw .invalidRequest(reason: "the ID token fuzzer has no network")
    }
}
