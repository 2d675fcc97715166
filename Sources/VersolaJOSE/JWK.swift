import VersolaCrypto

/// A public JSON Web Key (RFC 7517) usable for signature verification: RSA, EC (P-256, P-384,
/// P-521) or OKP (Ed25519, RFC 8037).
///
/// Only public members are read or kept; private members such as `d` are ignored. The key is
/// checked and turned into a ``VerificationKey`` once, when the JWK is created.
///
/// ```swift
/// let key = try JWK(parsing: #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#)
/// key.thumbprint()  // "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
/// ```
public struct JWK: Sendable {
    /// The key type (`kty`).
    public enum KeyType: String, Sendable, Hashable {
        /// `RSA`.
        case rsa = "RSA"
        /// `EC`.
        case ec = "EC"
        /// `OKP` (octet key pair, RFC 8037).
        case okp = "OKP"
    }

    /// The public key material.
    public enum Material: Sendable, Hashable {
        /// An RSA public key: big-endian modulus and exponent without leading zero bytes.
        case rsa(modulus: [UInt8], exponent: [UInt8])
        /// An EC public point with both coordinates at the curve's full size.
        case ec(curve: ECCurve, x: [UInt8], y: [UInt8])
        /// An Ed25519 public key (32 bytes).
        case ed25519(x: [UInt8])
    }

    /// The public key material.
    public let material: Material
    /// The key ID (`kid`), when present.
    public let keyID: String?
    /// The intended use (`use`: `sig` or `enc`), when present.
    public let use: String?
    /// The algorithm the key is declared for (`alg`), when present.
    public let algorithm: String?
    /// The permitted operations (`key_ops`), when present.
    public let operations: [String]?
    /// The key as the crypto layer verifies with it.
    public let verificationKey: VerificationKey

    /// The key type.
    public var keyType: KeyType {
        switch material {
        case .rsa: .rsa
        case .ec: .ec
        case .ed25519: .okp
        }
    }

    /// Creates a key from its material and optional metadata.
    /// - Throws: `JWKError.invalidMember` for a wrong-sized coordinate, or
    ///   `JWKError.invalidKeyMaterial` when the crypto layer refuses the key.
    public init(
        material: Material, keyID: String? = nil, use: String? = nil, algorithm: String? = nil,
        operations: [String]? = nil
    ) throws(JWKError) {
        let material = try JWK.normalized(material)
        self.material = material
        self.keyID = keyID
        self.use = use
        self.algorithm = algorithm
        self.operations = operations
        do {
            switch material {
            case .rsa(let modulus, let exponent):
                verificationKey = try .rsa(modulus: modulus, exponent: exponent)
            case .ec(let curve, let x, let y):
                verificationKey = try .ec(curve: curve, x: x, y: y)
            case .ed25519(let x):
                verificationKey = try .ed25519(publicKey: x)
            }
        } catch {
            throw .invalidKeyMaterial(error)
        }
    }

    /// Parses a JWK from JSON text.
    /// - Throws: `JWKError`.
    public init(parsing text: String) throws(JWKError) {
        let json: JSONValue
        do { json = try JSONValue(parsing: text) } catch { throw .invalidJSON(error) }
        try self.init(json: json)
    }

    /// Reads a JWK from a parsed JSON value.
    /// - Throws: `JWKError`.
    public init(json: JSONValue) throws(JWKError) {
        guard case .object(let object) = json else { throw .notAnObject }
        let keyType = try JWK.requiredString("kty", in: object)
        let material: Material
        switch keyType {
        case KeyType.rsa.rawValue:
            material = .rsa(
                modulus: try JWK.requiredBytes("n", in: object), exponent: try JWK.requiredBytes("e", in: object))
        case KeyType.ec.rawValue:
            let curveName = try JWK.requiredString("crv", in: object)
            guard let curve = ECCurve(rawValue: curveName) else { throw .unsupportedCurve(curveName) }
            material = .ec(
                curve: curve, x: try JWK.requiredBytes("x", in: object), y: try JWK.requiredBytes("y", in: object))
        case KeyType.okp.rawValue:
            let curveName = try JWK.requiredString("crv", in: object)
            guard curveName == "Ed25519" else { throw .unsupportedCurve(curveName) }
            material = .ed25519(x: try JWK.requiredBytes("x", in: object))
        default:
            throw .unsupportedKeyType(keyType)
        }
        var operations: [String]?
        if let value = object["key_ops"] {
            guard let elements = value.array else { throw .invalidMember("key_ops") }
            operations = []
            for element in elements {
                guard let operation = element.string else { throw .invalidMember("key_ops") }
                operations?.append(operation)
            }
        }
        try self.init(
            material: material,
            keyID: try JWK.optionalString("kid", in: object),
            use: try JWK.optionalString("use", in: object),
            algorithm: try JWK.optionalString("alg", in: object),
            operations: operations)
    }

    /// Whether this key may verify `algorithm`: its type and curve (and RSA size) fit, and its
    /// `use`, `alg` and `key_ops` members, when present, allow it.
    public func permits(_ algorithm: SignatureAlgorithm) -> Bool {
        if let use, use != "sig" { return false }
        if let declared = self.algorithm, declared != algorithm.rawValue { return false }
        if let operations, !operations.contains("verify") { return false }
        return verificationKey.supports(algorithm)
    }

    /// The public members as a JWK object: the required members (`kty`, then `crv`/`x`/`y` or
    /// `n`/`e`), then `kid`, `use`, `alg` and `key_ops` when set. Never contains private members.
    public var jsonValue: JSONValue {
        var object = JSONObject(requiredMembers)
        if let keyID { object["kid"] = .string(keyID) }
        if let use { object["use"] = .string(use) }
        if let algorithm { object["alg"] = .string(algorithm) }
        if let operations { object["key_ops"] = .array(operations.map { .string($0) }) }
        return .object(object)
    }

    /// The members RFC 7638 requires for this key type, in lexicographic order.
    var requiredMembers: [(String, JSONValue)] {
        switch material {
        case .rsa(let modulus, let exponent):
            return [("e", .string(Base64URL.encode(exponent))), ("kty", "RSA"), ("n", .string(Base64URL.encode(modulus)))]
        case .ec(let curve, let x, let y):
            return [
                ("crv", .string(curve.rawValue)), ("kty", "EC"), ("x", .string(Base64URL.encode(x))),
                ("y", .string(Base64URL.encode(y))),
            ]
        case .ed25519(let x):
            return [("crv", "Ed25519"), ("kty", "OKP"), ("x", .string(Base64URL.encode(x)))]
        }
    }

    // MARK: Reading members

    private static func requiredString(_ name: String, in object: JSONObject) throws(JWKError) -> String {
        guard let value = object[name] else { throw .missingMember(name) }
        guard let text = value.string else { throw .invalidMember(name) }
        return text
    }

    private static func optionalString(_ name: String, in object: JSONObject) throws(JWKError) -> String? {
        guard let value = object[name] else { return nil }
        guard let text = value.string else { throw .invalidMember(name) }
        return text
    }

    private static func requiredBytes(_ name: String, in object: JSONObject) throws(JWKError) -> [UInt8] {
        let text = try requiredString(name, in: object)
        do {
            return try Base64URL.decode(text)
        } catch {
            throw .invalidMember(name)
        }
    }

    /// Checks sizes and strips leading zero bytes from RSA integers (some providers add one).
    private static func normalized(_ material: Material) throws(JWKError) -> Material {
        switch material {
        case .rsa(let modulus, let exponent):
            let modulus = Array(modulus.drop(while: { $0 == 0 }))
            let exponent = Array(exponent.drop(while: { $0 == 0 }))
            guard !modulus.isEmpty else { throw .invalidMember("n") }
            guard !exponent.isEmpty else { throw .invalidMember("e") }
            return .rsa(modulus: modulus, exponent: exponent)
        case .ec(let curve, let x, let y):
            guard x.count == curve.coordinateSize else { throw .invalidMember("x") }
            guard y.count == curve.coordinateSize else { throw .invalidMember("y") }
            return material
        case .ed25519(let x):
            guard x.count == 32 else { throw .invalidMember("x") }
            return material
        }
    }
}

extension JWK: Equatable {
    /// Two JWKs are equal when their material and metadata are equal.
    public static func == (lhs: JWK, rhs: JWK) -> Bool {
        lhs.material == rhs.material && lhs.keyID == rhs.keyID && lhs.use == rhs.use
            && lhs.algorithm == rhs.algorithm && lhs.operations == rhs.operations
    }
}

extension JWK {
    /// The RFC 7638 thumbprint: SHA-256 over the required members in lexicographic order without
    /// whitespace, base64url-encoded. This is the `jkt` of DPoP (RFC 9449).
    public func thumbprint() -> String {
        Base64URL.encode(SHA256.hash(thumbprintInput()))
    }

    /// The exact bytes RFC 7638 hashes for the thumbprint.
    public func thumbprintInput() -> [UInt8] {
        JSONValue.object(JSONObject(requiredMembers)).serializedBytes()
    }
}
