import VersolaHTTP
/// The `token_type` of an access token (RFC 6749 §7.1), read case-insensitively.
public enum TokenType: String, Sendable, Hashable, CaseIterable {
    /// `Bearer` (RFC 6750).
    case bearer = "Bearer"
    /// `DPoP` (RFC 9449): the token is bound to the client's proof key.
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
