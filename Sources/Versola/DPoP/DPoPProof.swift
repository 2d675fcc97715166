import Foundation
import VersolaCrypto
import VersolaJOSE

/// Builds DPoP proofs (RFC 9449 §4.2, D2): compact ES256 JWS with the header
/// `{"typ":"dpop+jwt","alg":"ES256","jwk":{…public key…}}` and the claims `jti`, `htm`, `htu`,
/// `iat`, plus `ath` when an access token goes with the request and `nonce` when the server's
/// nonce is known.
///
/// A proof is made for every attempt of a request, so it is built directly as bytes: the
/// header is encoded once per key, the claims are written by hand, and the signature is ES256.
///
/// ```swift
/// let proof = try DPoPProof.make(
///     key: key, method: .get, url: resourceURL, accessToken: token, nonce: nil,
///     issuedAt: clock.wallClockNow, random: SystemRandomSource())
/// request.headers.set("DPoP", proof)
/// ```
public enum DPoPProof {
    /// How many random bytes make a `jti` (128 bits; RFC 9449 asks for at least 96).
    public static let jtiByteCount = 16

    /// Makes one proof.
    /// - Parameters:
    ///   - key: the grant's key.
    ///   - method: the request's method (`htm`).
    ///   - url: the request's URL; `htu` is its ``targetURI(of:)``.
    ///   - accessToken: the access token sent with the request, for `ath`; nil for none.
    ///   - nonce: the server's nonce, when one is known.
    ///   - issuedAt: the engine's wall-clock time (`iat`, whole seconds).
    ///   - random: where the `jti` comes from.
    /// - Returns: the compact JWS for the `DPoP` header.
    /// - Throws: `.configuration(.invalidConfiguration)` when the crypto library cannot sign.
    public static func make(
        key: DPoPKey, method: HTTPMethod, url: URL, accessToken: String? = nil, nonce: String? = nil, issuedAt: Date,
        random: any RandomSource
    ) throws(VersolaError) -> String {
        try make(
            key: key, method: method.rawValue, targetURI: targetURI(of: url),
            accessTokenHash: accessToken.map(accessTokenHash), nonce: nonce, issuedAt: issuedAt,
            jti: random.bytes(jtiByteCount))
    }

    /// Makes one proof from prepared parts (the sender computes `htu` and `ath` once per
    /// request and calls this for every attempt).
    /// - Parameters:
    ///   - jti: the random bytes of the `jti` (base64url-encoded into the claim).
    /// - Throws: `.configuration(.invalidConfiguration)` when the crypto library cannot sign.
    static func make(
        key: DPoPKey, method: String, targetURI: String, accessTokenHash: String?, nonce: String?, issuedAt: Date,
        jti: [UInt8]
    ) throws(VersolaError) -> String {
        var claims: [UInt8] = []
        claims.reserveCapacity(160 + targetURI.utf8.count + (nonce?.utf8.count ?? 0))
        claims.append(contentsOf: #"{"jti":""#.utf8)
        claims.append(contentsOf: Base64URL.encode(jti).utf8)
        claims.append(contentsOf: #"","htm":"#.utf8)
        appendJSONString(method, to: &claims)
        claims.append(contentsOf: #","htu":"#.utf8)
        appendJSONString(targetURI, to: &claims)
        claims.append(contentsOf: #","iat":"#.utf8)
        claims.append(contentsOf: String(Int64(issuedAt.timeIntervalSince1970.rounded(.down))).utf8)
        if let accessTokenHash {
            claims.append(contentsOf: #","ath":"#.utf8)
            appendJSONString(accessTokenHash, to: &claims)
        }
        if let nonce {
            claims.append(contentsOf: #","nonce":"#.utf8)
            appendJSONString(nonce, to: &claims)
        }
        claims.append(UInt8(ascii: "}"))

        var signingInput = key.signingInputPrefix
        signingInput.reserveCapacity(signingInput.count + claims.count * 4 / 3 + 2 + 1 + 86)
        signingInput.append(contentsOf: Base64URL.encode(claims).utf8)
        let signature: [UInt8]
        do { signature = try key.privateKey.signES256(signingInput) } catch {
            throw .configuration(.invalidConfiguration("a DPoP proof could not be signed: \(error)"))
        }
        signingInput.append(UInt8(ascii: "."))
        signingInput.append(contentsOf: Base64URL.encode(signature).utf8)
        return String(decoding: signingInput, as: UTF8.self)
    }

    /// The `ath` of an access token: base64url of its SHA-256 (RFC 9449 §4.2).
    public static func accessTokenHash(_ accessToken: String) -> String {
        Base64URL.encode(SHA256.hash(accessToken.utf8))
    }

    /// The `htu` of a URL (RFC 9449 §4.2, §4.3 step 9): scheme and host lowercased, user
    /// information and the scheme's default port dropped, the path as sent (`/` when empty),
    /// no query and no fragment.
    public static func targetURI(of url: URL) -> String {
        targetURI(of: url.absoluteString)
    }

    /// The `htu` of an absolute URL's text; see ``targetURI(of:)-(URL)``.
    public static func targetURI(of text: String) -> String {
        var rest = Substring(text)
        if let cut = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<cut] }
        guard let schemeEnd = rest.range(of: "://") else { return String(rest) }
        let scheme = rest[..<schemeEnd.lowerBound].lowercased()
        let afterScheme = rest[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        var authority = afterScheme[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority.lowercased()
        if scheme == "https", host.hasSuffix(":443") { host.removeLast(4) }
        if scheme == "http", host.hasSuffix(":80") { host.removeLast(3) }
        let path = afterScheme[authorityEnd...]
        return scheme + "://" + host + (path.isEmpty ? "/" : path)
    }

    /// Appends `text` as a JSON string: `"`, `\` and control characters escaped.
    private static func appendJSONString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                output.append(UInt8(ascii: "\\"))
                output.append(byte)
            case 0..<0x20:
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0xF)])
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
