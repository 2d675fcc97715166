import VersolaHTTP
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
    ///   - url: the request's URL; `htu` is its ``targetURI(of:)-(URL)``.
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
            accessTokenHash: accessToken.map(key.lastTokenHash.hash(of:)), nonce: nonce, issuedAt: issuedAt,
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
        appendLiteral(#"{"jti":""#, to: &claims)
        Base64URL.append(encoding: jti, to: &claims)
        appendLiteral(#"","htm":"#, to: &claims)
        appendJSONString(method, to: &claims)
        appendLiteral(#","htu":"#, to: &claims)
        appendJSONString(targetURI, to: &claims)
        appendLiteral(#","iat":"#, to: &claims)
        appendDecimal(Int64(issuedAt.timeIntervalSince1970.rounded(.down)), to: &claims)
        if let accessTokenHash {
            appendLiteral(#","ath":"#, to: &claims)
            appendJSONString(accessTokenHash, to: &claims)
        }
        if let nonce {
            appendLiteral(#","nonce":"#, to: &claims)
            appendJSONString(nonce, to: &claims)
        }
        claims.append(UInt8(ascii: "}"))
        return try assemble(key: key, claims: claims)
    }

    /// The compact JWS of `claims` under the key's header, written straight into the string it
    /// ends up in: the signing input is signed where it lies, and the signature, its digest and
    /// its DER form stay in scratch space.
    private static func assemble(key: DPoPKey, claims: [UInt8]) throws(VersolaError) -> String {
        let prefix = key.signingInputPrefix
        let signingInputLength = prefix.count + Base64URL.encodedLength(claims.count)
        let length = signingInputLength + 1 + Base64URL.encodedLength(64)
        var failure: CryptoError?
        let proof = String(unsafeUninitializedCapacity: length) { output in
            _ = UnsafeMutableBufferPointer(rebasing: output[..<prefix.count]).initialize(from: prefix)
            _ = claims.withUnsafeBufferPointer { claims in
                Base64URL.encode(claims, into: UnsafeMutableBufferPointer(rebasing: output[prefix.count..<signingInputLength]))
            }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { signature in
                do throws(CryptoError) {
                    try key.privateKey.signES256(UnsafeBufferPointer(rebasing: output[..<signingInputLength]), into: signature)
                } catch {
                    failure = error
                    return 0
                }
                output[signingInputLength] = UInt8(ascii: ".")
                let tail = UnsafeMutableBufferPointer(rebasing: output[(signingInputLength + 1)...])
                return signingInputLength + 1 + Base64URL.encode(UnsafeBufferPointer(signature), into: tail)
            }
        }
        if let failure { throw .configuration(.invalidConfiguration("a DPoP proof could not be signed: \(failure)")) }
        return proof
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

    /// The `htu` of an absolute URL's text; see ``targetURI(of:)-(URL)``. Works on the UTF-8
    /// bytes (ASCII case folding only, as scheme and host are ASCII once a URL is parsed).
    public static func targetURI(of text: String) -> String {
        if let normalised = text.utf8.withContiguousStorageIfAvailable(targetURI(bytes:)) { return normalised }
        return Array(text.utf8).withUnsafeBufferPointer(targetURI(bytes:))
    }

    /// ``targetURI(of:)-(String)`` over the text's UTF-8, written straight into the new string.
    private static func targetURI(bytes: UnsafeBufferPointer<UInt8>) -> String {
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        var schemeEnd = 0
        while schemeEnd + 2 < end,
            !(bytes[schemeEnd] == UInt8(ascii: ":") && bytes[schemeEnd + 1] == UInt8(ascii: "/")
                && bytes[schemeEnd + 2] == UInt8(ascii: "/"))
        {
            schemeEnd += 1
        }
        guard schemeEnd + 2 < end else { return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self) }
        let authorityStart = schemeEnd + 3
        var authorityEnd = authorityStart
        while authorityEnd < end, bytes[authorityEnd] != UInt8(ascii: "/") { authorityEnd += 1 }
        var hostStart = authorityStart
        for index in authorityStart..<authorityEnd where bytes[index] == UInt8(ascii: "@") { hostStart = index + 1 }

        let scheme = UnsafeBufferPointer(rebasing: bytes[..<schemeEnd])
        let isHTTPS = scheme.count == 5 && scheme.elementsEqual(httpsScheme, by: { asciiLowercase($0) == $1 })
        let isHTTP = scheme.count == 4 && scheme.elementsEqual(httpScheme, by: { asciiLowercase($0) == $1 })
        var hostEnd = authorityEnd
        if isHTTPS, hostEnd - hostStart >= 4, bytes[(hostEnd - 4)..<hostEnd].elementsEqual(httpsDefaultPort) {
            hostEnd -= 4
        } else if isHTTP, hostEnd - hostStart >= 3, bytes[(hostEnd - 3)..<hostEnd].elementsEqual(httpDefaultPort) {
            hostEnd -= 3
        }
        let path = UnsafeBufferPointer(rebasing: bytes[authorityEnd..<end])
        // The scheme, "://", the host lowercased, then the path ("/" when there is none).
        let length = schemeEnd + 3 + (hostEnd - hostStart) + max(path.count, 1)
        return String(unsafeUninitializedCapacity: length) { output in
            var written = 0
            for byte in scheme {
                output[written] = asciiLowercase(byte)
                written += 1
            }
            output[written] = UInt8(ascii: ":")
            output[written + 1] = UInt8(ascii: "/")
            output[written + 2] = UInt8(ascii: "/")
            written += 3
            for index in hostStart..<hostEnd {
                output[written] = asciiLowercase(bytes[index])
                written += 1
            }
            if path.isEmpty {
                output[written] = UInt8(ascii: "/")
                written += 1
            } else {
                for byte in path {
                    output[written] = byte
                    written += 1
                }
            }
            return written
        }
    }

    private static let httpsScheme: [UInt8] = Array("https".utf8)
    private static let httpScheme: [UInt8] = Array("http".utf8)
    private static let httpsDefaultPort: [UInt8] = Array(":443".utf8)
    private static let httpDefaultPort: [UInt8] = Array(":80".utf8)

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Appends a fixed piece of the claims (one copy of the literal's bytes).
    private static func appendLiteral(_ literal: StaticString, to output: inout [UInt8]) {
        literal.withUTF8Buffer { output.append(contentsOf: $0) }
    }

    /// Appends `value` in decimal, as JSON writes an integer.
    private static func appendDecimal(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for any Int64's 19 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var index = buffer.count
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[index...]))
        }
    }

    /// Appends `text` as a JSON string: `"`, `\` and control characters escaped.
    private static func appendJSONString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Methods, URLs, hashes and nonces almost never need escaping: then one copy, scanned
        // and copied as a buffer (a native string's UTF-8 is contiguous).
        let copied: Bool? = text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 {
                return false
            }
            output.append(contentsOf: bytes)
            return true
        }
        if copied == true {
            output.append(UInt8(ascii: "\""))
            return
        }
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
