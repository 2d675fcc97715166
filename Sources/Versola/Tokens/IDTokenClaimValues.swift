import VersolaJOSE

/// The claims of an ID token that validation and ``IDTokenClaims`` read, found in one pass over
/// the claims object.
///
/// Looking each name up on its own scanned the members fourteen times; one pass that tells the
/// names apart by length and bytes reads each member once. Names match as JSON member names
/// do, by their UTF-8 code units (RFC 8259 §8.3), never by Unicode equivalence.
struct IDTokenClaimValues {
    /// The claims read.
    enum Claim: Int {
        case issuer, subject, audience, authorizedParty, expiration, issuedAt, notBefore, nonce, accessTokenHash
        case name, email, preferredUsername, authenticationContextClass, authenticationTime
    }

    private let members: [JSONObject.Member]
    /// Where each claim is in `members`, by ``Claim``'s raw value; -1 when absent. Positions,
    /// not values, so that finding the claims copies nothing.
    private var positions = SIMD16<Int32>(repeating: -1)

    /// Finds the claims above in `object`; the others are left alone.
    init(_ object: JSONObject) {
        members = object.members
        for index in members.indices where index <= Int(Int32.max) {
            var name = members[index].name
            if let claim = name.withUTF8(Self.claim(named:)) { positions[claim.rawValue] = Int32(index) }
        }
    }

    /// The claim's value, or nil when the object has no member of that name.
    subscript(claim: Claim) -> JSONValue? {
        let position = Int(positions[claim.rawValue])
        // Not a conditional expression: JSONValue takes `nil` as a literal (JSON null).
        guard position >= 0 else { return nil }
        return members[position].value
    }

    /// Which of the claims above `name` is, if any.
    private static func claim(named name: UnsafeBufferPointer<UInt8>) -> Claim? {
        switch name.count {
        case 3:
            switch packed(name) {
            case packed("iss"): .issuer
            case packed("sub"): .subject
            case packed("aud"): .audience
            case packed("azp"): .authorizedParty
            case packed("exp"): .expiration
            case packed("iat"): .issuedAt
            case packed("nbf"): .notBefore
            case packed("acr"): .authenticationContextClass
            default: nil
            }
        case 4 where same(name, "name"): .name
        case 5 where same(name, "nonce"): .nonce
        case 5 where same(name, "email"): .email
        case 7 where same(name, "at_hash"): .accessTokenHash
        case 9 where same(name, "auth_time"): .authenticationTime
        case 18 where same(name, "preferred_username"): .preferredUsername
        default: nil
        }
    }

    /// A name of three bytes as one integer, so that one comparison tells it apart.
    private static func packed(_ name: UnsafeBufferPointer<UInt8>) -> UInt32 {
        UInt32(name[0]) << 16 | UInt32(name[1]) << 8 | UInt32(name[2])
    }

    private static func packed(_ name: StaticString) -> UInt32 {
        name.withUTF8Buffer { packed($0) }
    }

    private static func same(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        name.withUTF8Buffer { expected in expected.elementsEqual(bytes) }
    }
}
