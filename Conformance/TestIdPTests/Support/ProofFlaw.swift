import Foundation
import Testing
import VersolaJOSE

/// One way a DPoP proof breaks a single check of RFC 9449 §4.3, everything else correct.
enum ProofFlaw: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case notAJWT, twoHeaders, missingType, wrongType, algNone, algHS256, missingKey, privateKeyInKey,
        keyOtherThanSigner, badSignature, missingJTI, missingMethod, wrongMethod, missingURL, wrongPath, wrongHost,
        wrongScheme, missingIssuedAt, issuedAtTooOld, issuedAtTooNew, issuedAtNotANumber

    var testDescription: String { rawValue }

    /// The `DPoP` header values carrying the flawed proof for `method` on `url`.
    func headerValues(key: ClientDPoPKey, method: String, url: String, now: Date, accessToken: String? = nil) throws
        -> [String]
    {
        func proof(_ bend: ClientDPoPKey.Bend = ClientDPoPKey.Bend(), method: String = method, url: String = url, at: Date = now)
            throws -> String
        {
            try key.proof(method, url, at: at, accessToken: accessToken, bend: bend)
        }
        var bend = ClientDPoPKey.Bend()
        switch self {
        case .notAJWT: return ["not-a-jwt"]
        case .twoHeaders: return [try proof(), try proof()]
        case .missingType: bend.type = nil
        case .wrongType: bend.type = "jwt"
        case .algNone: return [key.unsignedProof(algorithm: "none", method, url, at: now)]
        case .algHS256: return [key.unsignedProof(algorithm: "HS256", method, url, at: now)]
        case .missingKey: bend.omitKey = true
        case .privateKeyInKey: bend.leakPrivateKey = true
        case .keyOtherThanSigner: bend.headerKey = try ClientDPoPKey().publicJWK
        case .badSignature: bend.corruptSignature = true
        case .missingJTI: bend.omitClaims = ["jti"]
        case .missingMethod: bend.omitClaims = ["htm"]
        case .wrongMethod: return [try proof(method: method == "POST" ? "GET" : "POST")]
        case .missingURL: bend.omitClaims = ["htu"]
        case .wrongPath: return [try proof(url: url + "-other")]
        case .wrongHost: return [try proof(url: url.replacingOccurrences(of: "127.0.0.1", with: "127.0.0.2"))]
        case .wrongScheme: return [try proof(url: url.replacingOccurrences(of: "http://", with: "https://"))]
        case .missingIssuedAt: bend.omitClaims = ["iat"]
        case .issuedAtTooOld: return [try proof(at: now - 61)]
        case .issuedAtTooNew: return [try proof(at: now + 61)]
        case .issuedAtNotANumber: bend.claims = ["iat": "yesterday"]
        }
        return [try proof(bend)]
    }
}

/// Proofs that differ from the canonical form in ways RFC 9449 §4.3 allows.
enum ProofVariation: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case queryInURL, fragmentInURL, uppercaseScheme, explicitDefaultPort, issuedAtAlmostTooOld, issuedAtAlmostTooNew

    var testDescription: String { rawValue }

    func proof(key: ClientDPoPKey, method: String, url: String, now: Date, accessToken: String? = nil) throws -> String {
        switch self {
        case .queryInURL: try key.proof(method, url + "?a=b", at: now, accessToken: accessToken)
        case .fragmentInURL: try key.proof(method, url + "#part", at: now, accessToken: accessToken)
        case .uppercaseScheme:
            try key.proof(method, url.replacingOccurrences(of: "http://", with: "HTTP://"), at: now, accessToken: accessToken)
        case .explicitDefaultPort:
            try key.proof(
                method, url.replacingOccurrences(of: "127.0.0.1/", with: "127.0.0.1:80/"), at: now, accessToken: accessToken)
        case .issuedAtAlmostTooOld: try key.proof(method, url, at: now - 60, accessToken: accessToken)
        case .issuedAtAlmostTooNew: try key.proof(method, url, at: now + 60, accessToken: accessToken)
        }
    }
}
