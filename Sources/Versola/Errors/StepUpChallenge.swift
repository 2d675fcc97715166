/// A resource's demand for a stronger or fresher authentication, parsed from
/// `WWW-Authenticate` (A10, RFC 9470).
public struct StepUpChallenge: Sendable, Hashable, CustomStringConvertible {
    /// The authentication context classes the resource will accept, most preferred first.
    public var acrValues: [String]
    /// The largest acceptable age of the authentication, in seconds.
    public var maxAge: Int?
    /// The scopes a new authorization asks for (A20): those held and those a 403
    /// `insufficient_scope` named, together; empty when the challenge named none.
    public var scopes: [String]

    /// Creates a challenge.
    public init(acrValues: [String] = [], maxAge: Int? = nil, scopes: [String] = []) {
        self.acrValues = acrValues
        self.maxAge = maxAge
        self.scopes = scopes
    }

    public var description: String {
        var parts: [String] = []
        if !acrValues.isEmpty { parts.append("acr_values=\(acrValues.joined(separator: " "))") }
        if let maxAge { parts.append("max_age=\(maxAge)") }
        if !scopes.isEmpty { parts.append("scope=\(scopes.joined(separator: " "))") }
        return parts.joined(separator: ", ")
    }
}

extension StepUpChallenge {
    /// Whether `value` may be an `acr_values` entry of a step-up challenge (L5): 1 to 255
    /// visible ASCII characters, none of them a quote, a backtick or a character a shell treats
    /// specially (`$ \ | & ; < > ( ) [ ] { } * ? !`). Real ACR values are names or URIs
    /// (`urn:mace:incommon:iap:silver`, `http://schemas.example/mfa`) and pass; a value built
    /// to escape the quoting of a printed `versola login --acr-values …` does not.
    public static func isAcceptableACRValue(_ value: some StringProtocol) -> Bool {
        guard !value.isEmpty, value.utf8.count <= 255 else { return false }
        return value.utf8.allSatisfy { byte in
            byte > 0x20 && byte < 0x7F && !forbiddenACRBytes.contains(byte)
        }
    }

    private static let forbiddenACRBytes: Set<UInt8> = Set("\"'`$\\|&;<>()[]{}*?!".utf8)
}
