/// The JWS signature algorithms Versola verifies (RFC 7518 §3, RFC 8037).
///
/// There is deliberately no HMAC or `none` case: a public client never holds a shared
/// secret, so neither can ever verify a token here.
public enum SignatureAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = "RS256"
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    case rs384 = "RS384"
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    case rs512 = "RS512"
    /// RSASSA-PSS with SHA-256, MGF1 with SHA-256, salt of 32 bytes.
    case ps256 = "PS256"
    /// RSASSA-PSS with SHA-384, MGF1 with SHA-384, salt of 48 bytes.
    case ps384 = "PS384"
    /// RSASSA-PSS with SHA-512, MGF1 with SHA-512, salt of 64 bytes.
    case ps512 = "PS512"
    /// ECDSA on P-256 with SHA-256.
    case es256 = "ES256"
    /// ECDSA on P-384 with SHA-384.
    case es384 = "ES384"
    /// ECDSA on P-521 with SHA-512.
    case es512 = "ES512"
    /// EdDSA; Versola supports the Ed25519 curve.
    case edDSA = "EdDSA"

    var digest: DigestFunction? {
        switch self {
        case .rs256, .ps256, .es256: .sha256
        case .rs384, .ps384, .es384: .sha384
        case .rs512, .ps512, .es512: .sha512
        case .edDSA: nil
        }
    }

    /// The key-context pool's slot for verifying with this algorithm (slot 0 is signing).
    var verifySlot: Int {
        switch self {
        case .rs256: 1
        case .rs384: 2
        case .rs512: 3
        case .ps256: 4
        case .ps384: 5
        case .ps512: 6
        case .es256: 7
        case .es384: 8
        case .es512: 9
        case .edDSA: 10
        }
    }

    /// Runs `body` with the digest of `bytes` under this algorithm's SHA-2 (SHA-512 for EdDSA
    /// with Ed25519, as OpenID Connect's `at_hash` and `c_hash` take it), held in scratch space.
    /// (Not generic: it is called from another module on every ID token, where a generic
    /// entry would look its types up at run time.)
    package func withTokenHashDigest(of bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        withDigest(digest ?? .sha512, of: bytes, body)
    }

    /// This algorithm's bit in a set of algorithms kept as a mask (an allow-list looked up on
    /// every token, without hashing).
    package var maskBit: UInt32 { 1 << UInt32(verifySlot) }

    /// How many slots a key-context pool has: signing, then one per algorithm.
    static let contextSlotCount = 1 + allCases.count

    // Hashed and compared by case: the defaults of a String-backed enum hash and compare the
    // raw value's text, and every verification looks its algorithm up in an allow-list.
    public func hash(into hasher: inout Hasher) { hasher.combine(verifySlot) }

    public static func == (lhs: SignatureAlgorithm, rhs: SignatureAlgorithm) -> Bool { lhs.verifySlot == rhs.verifySlot }

    var isPSS: Bool {
        self == .ps256 || self == .ps384 || self == .ps512
    }

    var isRSA: Bool {
        switch self {
        case .rs256, .rs384, .rs512, .ps256, .ps384, .ps512: true
        default: false
        }
    }
}

/// The NIST curves JOSE names (RFC 7518 §6.2.1.1).
public enum ECCurve: String, Sendable, Hashable, CaseIterable {
    /// NIST P-256 (secp256r1).
    case p256 = "P-256"
    /// NIST P-384 (secp384r1).
    case p384 = "P-384"
    /// NIST P-521 (secp521r1).
    case p521 = "P-521"

    /// Bytes in one coordinate, and in each of `r` and `s` of a signature.
    public var coordinateSize: Int {
        switch self {
        case .p256: 32
        case .p384: 48
        case .p521: 66
        }
    }

    /// The one ECDSA algorithm that uses this curve (RFC 7518 §3.4).
    public var algorithm: SignatureAlgorithm {
        switch self {
        case .p256: .es256
        case .p384: .es384
        case .p521: .es512
        }
    }
}
