/// Why a base64url text (RFC 4648 §5, without padding, as JOSE uses it) was rejected.
public enum Base64URLError: Error, Sendable, Hashable {
    /// A character outside `A–Z a–z 0–9 - _` at this UTF-8 offset.
    case invalidCharacter(offset: Int)
    /// A `=` padding character: JOSE forbids padding.
    case paddingNotAllowed
    /// A length no encoding can produce (length % 4 == 1).
    case impossibleLength(Int)
    /// The last character carries bits that an encoder always leaves at zero, so the text is
    /// not the one canonical encoding of its bytes.
    case nonCanonicalTrailingBits
}
