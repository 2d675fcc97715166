import VersolaCrypto

/// A JSON Web Key Set (RFC 7517 §5), as served at a provider's `jwks_uri`.
///
/// Keys that cannot be used (an unknown `kty` such as `oct`, an unsupported curve, missing or
/// malformed members) are skipped as RFC 7517 §5 advises, and listed in ``ignoredKeys`` so a
/// developer can see why a key is not available.
///
/// ```swift
/// let set = try JWKSet(parsing: jwksText)
/// let key = try jws.verify(using: set, allowedAlgorithms: [.rs256, .es256])
/// ```
public struct JWKSet: Sendable {
    /// A key of the set that was skipped.
    public struct IgnoredKey: Sendable, Hashable {
        /// Its position in the `keys` array.
        public var index: Int
        /// Its `kid`, when it had a string one.
        public var keyID: String?
        /// Why it was skipped.
        public var reason: JWKError
    }

    /// The usable keys, in the order of the document.
    public let keys: [JWK]
    /// The keys that were skipped, and why.
    public let ignoredKeys: [IgnoredKey]

    /// Creates a set from keys.
    public init(keys: [JWK]) {
        self.keys = keys
        ignoredKeys = []
    }

    /// Parses a key set from JSON text.
    /// - Throws: `JWKError` when the text is not JSON, not an object, or has no `keys` array.
    public init(parsing text: String) throws(JWKError) {
        let json: JSONValue
        do { json = try JSONValue(parsing: text) } catch { throw .invalidJSON(error) }
        try self.init(json: json)
    }

    /// Parses a key set from UTF-8 bytes (an HTTP response body).
    /// - Throws: `JWKError` when the bytes are not JSON, not an object, or have no `keys` array.
    public init(parsing bytes: some Collection<UInt8>) throws(JWKError) {
        let json: JSONValue
        do { json = try JSONValue(parsing: bytes) } catch { throw .invalidJSON(error) }
        try self.init(json: json)
    }

    /// Reads a key set from a parsed JSON value.
    /// - Throws: `JWKError` when the value is not an object or has no `keys` array.
    public init(json: JSONValue) throws(JWKError) {
        guard case .object(let object) = json else { throw .notAnObject }
        guard let member = object["keys"] else { throw .missingMember("keys") }
        guard let elements = member.array else { throw .invalidMember("keys") }
        var keys: [JWK] = []
        var ignored: [IgnoredKey] = []
        keys.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do {
                keys.append(try JWK(json: element))
            } catch {
                ignored.append(IgnoredKey(index: index, keyID: element["kid"]?.string, reason: error))
            }
        }
        self.keys = keys
        ignoredKeys = ignored
    }

    /// Whether the set has a usable key with this `kid` (an unknown `kid` is the signal to
    /// fetch the set again, SPEC A7).
    public func containsKey(withID keyID: String) -> Bool {
        keys.contains { $0.keyID == keyID }
    }

    /// Which keys of a set may verify a token, or why none may.
    public enum KeySelection: Sendable {
        /// The keys to try, in the set's order (several only when the token names no `kid`).
        case candidates([JWK])
        /// No key has the token's `kid`: the set may be out of date (fetch it again once).
        case unknownKeyID(String)
        /// The token names no `kid` and no key permits its algorithm (fetch the set again once).
        case noKeyForAlgorithm(SignatureAlgorithm)
        /// Keys with the token's `kid` exist, but none permits its algorithm.
        case keyIDForbidsAlgorithm(String, SignatureAlgorithm)
    }

    /// The keys that may verify a token signed with `algorithm` and carrying `keyID`: every key
    /// with that `kid` (every key when the token names none) whose type, curve, `use`, `alg` and
    /// `key_ops` permit the algorithm. The one place a key is chosen for a signature.
    public func select(keyID: String?, algorithm: SignatureAlgorithm) -> KeySelection {
        // Keys are looked at where they are (no copy of each), and the one key a token names
        // nearly always is returned without growing an array.
        var named = false
        var usable: [JWK] = []
        for index in keys.indices where keyID == nil || keys[index].keyID == keyID {
            named = true
            guard keys[index].permits(algorithm) else { continue }
            if usable.isEmpty { usable = [keys[index]] } else { usable.append(keys[index]) }
        }
        if !usable.isEmpty { return .candidates(usable) }
        guard let keyID else { return .noKeyForAlgorithm(algorithm) }
        return named ? .keyIDForbidsAlgorithm(keyID, algorithm) : .unknownKeyID(keyID)
    }
}
