/// What the provider itself said about a failure: its OAuth `error` code and
/// `error_description` (RFC 6749 §5.2, RFC 6750 §3), kept with the error it caused (E14).
///
/// Both texts come from the network, so they are cleaned when the value is made: control and
/// invisible formatting characters (line breaks, escape sequences, bidirectional overrides) are
/// dropped or turned into spaces, runs of spaces are collapsed, and each text is cut to a bounded
/// length. What is left is safe to print on a terminal or to log. The engine never decides
/// anything by these texts (E6): only the ``code`` chose the error's category, before.
///
/// ```swift
/// let said = ProviderError(code: "invalid_request", description: "consent in prompt")
/// print(said?.description ?? "")   // invalid_request: consent in prompt
/// ```
public struct ProviderError: Sendable, Hashable, CustomStringConvertible {
    /// The `error` code as sent, cleaned; never empty.
    public let code: String
    /// The `error_description`, cleaned; nil when the provider sent none (or only invisible text).
    public let errorDescription: String?

    /// The longest code kept, in characters.
    public static let maximumCodeLength = 64
    /// The longest description kept, in characters; a longer one is cut and ends with "…".
    public static let maximumDescriptionLength = 240

    /// Cleans and keeps what the provider said; nil when the code is empty once cleaned.
    public init?(code: String, description: String?) {
        let cleanCode = ProviderText.clean(code, limit: Self.maximumCodeLength)
        guard !cleanCode.isEmpty else { return nil }
        self.code = cleanCode
        let cleanDescription = description.map { ProviderText.clean($0, limit: Self.maximumDescriptionLength) }
        errorDescription = cleanDescription?.isEmpty == false ? cleanDescription : nil
    }

    /// `code`, or `code: description`.
    public var description: String {
        if let errorDescription { return "\(code): \(errorDescription)" }
        return code
    }
}

/// Cleaning of text that came from a provider before it reaches a terminal or a log.
public enum ProviderText {
    /// `text` without control or invisible formatting characters (each run of them and of
    /// white space becomes one space), trimmed, and cut to `limit` characters (the cut ends with "…").
    public static func clean(_ text: String, limit: Int) -> String {
        var scalars = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if isInvisible(scalar) || scalar.properties.isWhitespace {
                pendingSpace = !scalars.isEmpty
                continue
            }
            if pendingSpace { scalars.append(" ") }
            pendingSpace = false
            scalars.append(scalar)
        }
        let cleaned = String(scalars)
        guard limit > 0 else { return "" }
        guard cleaned.count > limit else { return cleaned }
        return String(cleaned.prefix(limit - 1)) + "…"
    }

    /// Control characters (C0, DEL, C1), formatting characters (bidirectional overrides,
    /// zero-width marks) and line or paragraph separators.
    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: true
        default: false
        }
    }
}
