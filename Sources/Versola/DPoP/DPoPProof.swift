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
        var accessTokenHash: String?
        if let accessToken { accessTokenHash = key.lastTokenHash.value(for: accessToken, Self.accessTokenHash) }
        return try make(
            key: key, method: method.rawValue, targetURI: key.lastTargetURI.value(for: url, Self.targetURI(of:)),
            accessTokenHash: accessTokenHash, nonce: nonce, issuedAt: issuedAt, random: random)
    }

    /// Makes one proof from prepared parts (the sender computes `htu` and `ath` once per
    /// request and calls this for every attempt).
    /// - Parameters:
    ///   - jti: the random bytes of the `jti` (base64url-encoded into the claim).
    /// - Throws: `.configuration(.invalidConfiguration)` when the crypto library cannot sign.
    static func make(
        key: DPoPKey, method: String, targetURI: String, accessTokenHash: String?, nonce: String?, issuedAt: Date,
        random: any RandomSource
    ) throws(VersolaError) -> String {
        // The `jti` is drawn into scratch space: no array for sixteen bytes.
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: jtiByteCount) { jti throws(VersolaError) in
            random.fill(jti)
            return try make(
                key: key, method: method, targetURI: targetURI, accessTokenHash: accessTokenHash, nonce: nonce,
                issuedAt: issuedAt, jti: UnsafeBufferPointer(jti))
        }
    }

    /// ``make(key:method:targetURI:accessTokenHash:nonce:issuedAt:random:)`` with the `jti`'s bytes given.
    static func make(
        key: DPoPKey, method: String, targetURI: String, accessTokenHash: String?, nonce: String?, issuedAt: Date,
        jti: [UInt8]
    ) throws(VersolaError) -> String {
        try jti.withUnsafeBufferPointer { jti throws(VersolaError) in
            try make(
                key: key, method: method, targetURI: targetURI, accessTokenHash: accessTokenHash, nonce: nonce,
                issuedAt: issuedAt, jti: jti)
        }
    }

    private static func make(
        key: DPoPKey, method: String, targetURI: String, accessTokenHash: String?, nonce: String?, issuedAt: Date,
        jti: UnsafeBufferPointer<UInt8>
    ) throws(VersolaError) -> String {
        let privateKey = key.privateKey
        let prefix = key.signingInputPrefix
        let prefixHash = key.signingInputPrefixHash
        return try withClaimsJSON(
            jti: jti, method: method, targetURI: targetURI, accessTokenHash: accessTokenHash, nonce: nonce,
            issuedAt: Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        ) { claims throws(VersolaError) in
            try assemble(prefix: prefix, prefixHash: prefixHash, privateKey: privateKey, claims: claims)
        }
    }

    /// The compact JWS of `claims` under the key's header, written straight into the string it
    /// ends up in: the signing input is signed where it lies, and the signature, its digest and
    /// its DER form stay in scratch space.
    private static func assemble(
        prefix: [UInt8], prefixHash: SHA256Prefix, privateKey: P256PrivateKey, claims: UnsafeBufferPointer<UInt8>
    ) throws(VersolaError) -> String {
        let signingInputLength = prefix.count + Base64URL.encodedLength(claims.count)
        let length = signingInputLength + 1 + Base64URL.encodedLength(64)
        var failure: CryptoError?
        let proof = String(unsafeUninitializedCapacity: length) { output in
            _ = UnsafeMutableBufferPointer(rebasing: output[..<prefix.count]).initialize(from: prefix)
            _ = Base64URL.encode(claims, into: UnsafeMutableBufferPointer(rebasing: output[prefix.count..<signingInputLength]))
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { signature in
                do throws(CryptoError) {
                    try privateKey.signES256(
                        UnsafeBufferPointer(rebasing: output[..<signingInputLength]), startingWith: prefixHash, into: signature)
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
}
