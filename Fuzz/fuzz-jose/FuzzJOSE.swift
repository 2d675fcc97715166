import Foundation
import VersolaCrypto
import VersolaJOSE

// libFuzzer entry point for VersolaJOSE: every input goes through base64url decoding, JSON
// parsing (with a serialize/re-parse round trip), JWK and JWKS reading, and compact JWS parsing
// plus verification against fixed keys and claim validation. Any trap is a finding; the
// round-trip checks trap on purpose when an invariant breaks.

/// The RFC 7515 A.2 RSA key, A.3 P-256 key and RFC 8037 Ed25519 key, as one set. Parsed per
/// input rather than kept in a global: LeakSanitizer cannot see array pointers stored in an
/// enum payload's spare bits, so a global set is reported as a leak.
private let fixedKeysText = """
    {"keys":[
    {"kty":"RSA","kid":"rsa","n":"ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ","e":"AQAB"},
    {"kty":"EC","kid":"ec","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
    {"kty":"OKP","kid":"ed","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}
    ]}
    """

private let requirements = JWTClaimRequirements(issuer: "joe", audience: "client")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    // Base64url: whatever decodes must encode back to the same text (canonical form only).
    if let decoded = try? Base64URL.decode(bytes: bytes) {
        let again = Base64URL.encode(decoded)
        if Array(again.utf8) != bytes { fatalError("base64url round trip changed the text") }
    }

    // JSON: whatever parses must serialize to text that parses to the same value.
    if let value = try? JSONValue(parsing: bytes) {
        let text = value.serializedBytes()
        guard let reparsed = try? JSONValue(parsing: text), reparsed == value else {
            fatalError("JSON round trip changed the value")
        }
        _ = value.description
        if let key = try? JWK(json: value) {
            _ = key.thumbprint()
            _ = try? JWK(json: key.jsonValue)
        }
        _ = try? JWKSet(json: value)
        _ = try? JWTClaims(payload: text).validate(requirements, now: .init(timeIntervalSince1970: 1_300_819_000))
    }

    // JWS: parse, then verify against each fixed key and against the set.
    if let jws = try? JWS(compact: bytes, understoodCriticalParameters: ["exp"]) {
        if let fixedKeys = try? JWKSet(parsing: fixedKeysText) {
            _ = try? jws.verify(using: fixedKeys, allowedAlgorithms: Set(SignatureAlgorithm.allCases))
            for key in fixedKeys.keys {
                _ = try? jws.verify(with: key, allowedAlgorithms: Set(SignatureAlgorithm.allCases))
            }
        }
        _ = try? jws.payloadJSON()
        if let claims = try? JWTClaims(payload: jws.payload) {
            _ = try? claims.validate(requirements, now: .init(timeIntervalSince1970: 1_300_819_000))
        }
    }
    return 0
}
