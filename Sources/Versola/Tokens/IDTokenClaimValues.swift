import Glibc
import VersolaJOSE

/// The claims of an ID token that validation and ``IDTokenClaims`` read, found in one pass over
/// the members of the payload as skimmed in place (``JSONValue/skimObject(_:visit:)``): a value is
/// built only for the claims read, by the strict parser, from the bytes of that member alone.
///
/// Looking each name up on its own scanned the members fourteen times; one pass that tells the
/// names apart by length and bytes reads each member once. Names match as JSON member names
/// do, by their UTF-8 code units (RFC 8259 §8.3), never by Unicode equivalence.
///
/// It points into the payload it was made from, so it lives only while that payload does.
struct IDTokenClaimValues {
    /// The claims read.
    enum Claim: Int {
        case issuer, subject, audience, authorizedParty, expiration, issuedAt, notBefore, nonce, accessTokenHash
        case name, email, preferredUsername, authenticationContextClass, authenticationTime
    }

    private let payload: UnsafeBufferPointer<UInt8>
    /// Where each claim's value starts and ends in `payload`, by ``Claim``'s raw value; -1 when
    /// absent. Positions, not values, so that finding the claims copies nothing.
    private var starts: InlineArray<16, Int32>
    private var ends: InlineArray<16, Int32>

    /// Finds the claims above in `payload` as it is skimmed (the others are left alone), or
    /// nil when `payload` is not a JSON object: malformed, with a duplicate member, or another value.
    init?(payload: UnsafeBufferPointer<UInt8>) {
        self.payload = payload
        var starts = InlineArray<16, Int32>(repeating: -1)
        var ends = InlineArray<16, Int32>(repeating: -1)
        let positionsFit = payload.count <= Int(Int32.max)
        let isObject = try? JSONValue.skimObject(payload) { member in
            guard positionsFit else { return }
            // A name without escapes is its own bytes, read where they are.
            let claim =
                member.decodedName == nil
                ? Self.claim(named: UnsafeBufferPointer(rebasing: payload[member.nameRange]))
                : member.withNameBytes(in: payload, Self.claim(named:))
            if let claim {
                starts[claim.rawValue] = Int32(member.valueRange.lowerBound)
                ends[claim.rawValue] = Int32(member.valueRange.upperBound)
            }
        }
        guard isObject == true else { return nil }
        self.starts = starts
        self.ends = ends
    }

    /// Runs `body` with the claims of the payload `bytes`, or returns nil when they are not a
    /// JSON object.
    static func reading<R>(payload bytes: UnsafeBufferPointer<UInt8>, _ body: (IDTokenClaimValues) -> R) -> R? {
        IDTokenClaimValues(payload: bytes).map(body)
    }

    /// The claim's value, or nil when the object has no member of that name.
    subscript(claim: Claim) -> JSONValue? {
        let start = Int(starts[claim.rawValue])
        // Not a conditional expression: JSONValue takes `nil` as a literal (JSON null).
        guard start >= 0 else { return nil }
        let raw = UnsafeBufferPointer(rebasing: payload[start..<Int(ends[claim.rawValue])])
        if let value = Self.plainValue(raw) { return value }
        // The member was checked with the whole payload, so it parses.
        return try? JSONValue(parsingBuffer: raw)
    }

    /// The two shapes nearly every claim has, read without the parser: a string without
    /// escapes (the skim checked its bytes, so they are its UTF-8) and a small non-negative
    /// integer. Anything else is nil, for the strict parser.
    private static func plainValue(_ raw: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        guard let first = raw.first else { return nil }
        if first == UInt8(ascii: "\"") {
            guard raw.count >= 2, !raw.contains(UInt8(ascii: "\\")) else { return nil }
            return .string(String(decoding: UnsafeBufferPointer(rebasing: raw[1..<(raw.count - 1)]), as: UTF8.self))
        }
        // At most 18 digits always fits Int64; a leading zero is only "0" itself (the skim
        // rejected any other).
        guard raw.count <= 18 else { return nil }
        var value: Int64 = 0
        for byte in raw {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return .integer(value)
    }

    /// Whether the payload has the claim.
    func contains(_ claim: Claim) -> Bool { starts[claim.rawValue] >= 0 }

    /// Whether the claim is a string whose UTF-8 is exactly `expected`'s, read in place when the
    /// string has no escape (nil when the claim is absent).
    func isString(_ claim: Claim, equalTo expected: String) -> Bool? {
        var expected = expected
        return expected.withUTF8 { isString(claim, equalTo: $0) }
    }

    /// Whether the claim is a string whose UTF-8 is exactly `expected` (nil when it is absent).
    func isString(_ claim: Claim, equalTo expected: UnsafeBufferPointer<UInt8>) -> Bool? {
        let start = Int(starts[claim.rawValue])
        guard start >= 0 else { return nil }
        let end = Int(ends[claim.rawValue])
        let raw = UnsafeBufferPointer(rebasing: payload[start..<end])
        guard raw.count >= 2, raw.first == UInt8(ascii: "\""), !raw.contains(UInt8(ascii: "\\")) else {
            return self[claim]?.string.map { $0.utf8.elementsEqual(expected) } ?? false
        }
        guard raw.count - 2 == expected.count else { return false }
        guard let inner = raw.baseAddress, let other = expected.baseAddress else { return true }
        return memcmp(inner + 1, other, expected.count) == 0
    }

    /// Which of the claims above `name` is, if any.
    private static func claim(named name: UnsafeBufferPointer<UInt8>) -> Claim? {
        switch name.count {
        case 3:
            // The names' bytes as literals (0x69 0x73 0x73 is "iss"): computed from strings,
            // each case cost a call per member.
            switch packed(name) {
            case 0x69_7373: .issuer
            case 0x73_7562: .subject
            case 0x61_7564: .audience
            case 0x61_7A70: .authorizedParty
            case 0x65_7870: .expiration
            case 0x69_6174: .issuedAt
            case 0x6E_6266: .notBefore
            case 0x61_6372: .authenticationContextClass
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

    /// Whether `bytes` are `name`'s (the caller has matched the length).
    private static func same(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        guard let start = bytes.baseAddress, bytes.count == name.utf8CodeUnitCount else { return false }
        return memcmp(start, name.utf8Start, bytes.count) == 0
    }
}
