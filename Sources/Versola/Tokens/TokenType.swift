import VersolaHTTP
/// The `token_type` of an access token (RFC 6749 §7.1), read case-insensitively.
public enum TokenType: String, Sendable, Hashable, CaseIterable {
    /// Presented as it is: whoever holds the token can use it (`Bearer`, RFC 6750).
    case bearer = "Bearer"
    /// Bound to the client's proof key: each request carries a proof signed with it (`DPoP`,
    /// RFC 9449).
    case dpop = "DPoP"

    /// The type for a wire value, ignoring letter case; nil for any other type.
    public init?(wireValue: String) {
        switch wireValue.lowercased() {
        case "bearer": self = .bearer
        case "dpop": self = .dpop
        default: return nil
        }
    }
}
