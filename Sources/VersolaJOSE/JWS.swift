import Glibc
import VersolaCrypto

/// A parsed compact JWS (RFC 7515 §7.1): `header.payload.signature`.
///
/// Parsing checks the structure only: three base64url parts, a JSON-object header with a
/// supported `alg` (never `none`, never HMAC) and a `crit` that is understood. The signature is
/// checked by `verify(with:allowedAlgorithms:)` or ``verify(using:allowedAlgorithms:)``,
/// which choose the algorithm from the key and the caller's allow-list; keys embedded in the
/// header (`jwk`, `jku`, `x5c`, `x5u`) are never used.
///
/// ```swift
/// let jws = try JWS(compact: idToken)
/// try jws.verify(using: providerKeys, allowedAlgorithms: [.rs256])
/// let claims = try JWTClaims(payload: jws.payload)
/// ```
public struct JWS: Sendable {
    /// Header parameters RFC 7515 §4.1 defines; `crit` may not list them.
    static let registeredHeaderParameters: Set<String> = [
        "alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit",
    ]

    /// Header parameters that must be strings when present.
    static let stringHeaderParameters = ["kid", "typ", "cty"]

    /// The protected header.
    public let header: JSONObject
    /// The header's algorithm (what the token claims; verification still requires the key and
    /// the allow-list to agree).
    public let algorithm: SignatureAlgorithm
    /// The decoded payload bytes.
    public let payload: [UInt8]
    /// The decoded signature bytes.
    public let signature: [UInt8]
    /// The ASCII bytes the signature covers: `header.payload` as they appeared in the token.
    public let signingInput: [UInt8]

    /// The header's `kid`, when it is a string.
    public var keyID: String? { header["kid"]?.string }

    /// The header's `typ`, when it is a string.
    public var type: String? { header["typ"]?.string }

    /// Parses a compact JWS.
    /// - Parameters:
    ///   - compact: the token text.
    ///   - understoodCriticalParameters: extension header parameters the caller processes; a
    ///     `crit` listing any other makes the token invalid (RFC 7515 §4.1.11).
    /// - Throws: `JWSError` for any malformed input.
    public init(compact: String, understoodCriticalParameters: Set<String> = []) throws(JWSError) {
        var text = compact
        self = try text.withUTF8 { buffer in
            Result { () throws(JWSError) in
                try JWS(utf8: buffer, understoodCriticalParameters: understoodCriticalParameters)
            }
        }.get()
    }

    /// Parses a compact JWS from its UTF-8 bytes.
    /// - Throws: `JWSError` for any malformed input.
    public init(compact bytes: some Collection<UInt8>, understoodCriticalParameters: Set<String> = []) throws(JWSError) {
        let contiguous = Array(bytes)
        self = try contiguous.withUnsafeBufferPointer { buffer in
            Result { () throws(JWSError) in
                try JWS(utf8: buffer, understoodCriticalParameters: understoodCriticalParameters)
            }
        }.get()
    }

    private init(utf8 bytes: UnsafeBufferPointer<UInt8>, understoodCriticalParameters: Set<String>) throws(JWSError) {
        let layout = try JWS.layout(of: bytes, understoodCriticalParameters: understoodCriticalParameters)
        header = layout.header
        algorithm = layout.algorithm
        payload = try JWS.decode(bytes, layout.payloadRange, .payload)
        signature = try JWS.decode(bytes, layout.signatureRange(in: bytes), .signature)
        signingInput = Array(UnsafeBufferPointer(rebasing: bytes[layout.signingInputRange]))
    }

    /// The offset of the first `.` at or after `start` (`memchr`: a token is mostly base64url, and
    /// a byte-at-a-time scan of it was a tenth of an ID token's parse).
    static func indexOfDot(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress,
            let found = memchr(base + start, Int32(UInt8(ascii: ".")), bytes.count - start)
        else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    static func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ part: Part
    ) throws(JWSError) -> [UInt8] {
        do {
            return try Base64URL.decode(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range])))
        } catch {
            throw .invalidBase64URL(part, error)
        }
    }

    typealias Part = JWSError.Part

    static func checkCritical(_ header: JSONObject, understood: Set<String>) throws(JWSError) {
        guard let critical = header["crit"] else { return }
        guard let elements = critical.array, !elements.isEmpty else { throw .invalidCriticalParameters }
        var names: [String] = []
        for element in elements {
            guard let name = element.string, !names.contains(name), !registeredHeaderParameters.contains(name),
                header[name] != nil
            else { throw .invalidCriticalParameters }
            names.append(name)
        }
        let unsupported = names.filter { !understood.contains($0) }
        if !unsupported.isEmpty { throw .unsupportedCriticalParameters(unsupported) }
    }

    /// The payload parsed as JSON.
    /// - Throws: `JWSError.invalidJSON(.payload, …)`.
    public func payloadJSON() throws(JWSError) -> JSONValue {
        do { return try JSONValue(parsing: payload) } catch { throw .invalidJSON(.payload, error) }
    }
}

extension JWS: CustomStringConvertible, CustomDebugStringConvertible {
    /// The algorithm, `kid` and sizes, never the payload or signature (a token is a secret).
    public var description: String {
        "JWS(alg: \(algorithm.rawValue), kid: \(keyID ?? "none"), payload: \(payload.count) bytes, "
            + "signature: \(signature.count) bytes)"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }
}
