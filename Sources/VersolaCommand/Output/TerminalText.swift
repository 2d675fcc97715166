/// Text from outside (a provider, a resource, a token) made safe to print on a terminal (L5).
///
/// A terminal obeys control characters: ESC starts sequences that set the window title,
/// write the clipboard (OSC 52) or move the cursor over earlier lines, and a bare CR or
/// backspace hides what was printed. ``visible(_:)`` replaces each such character with a
/// printable escape, so the person sees that it was there and the terminal does nothing.
///
/// Every human output path of the command passes outside text through this one function:
/// claims, UserInfo, error codes and descriptions, issuers, subjects, names and emails.
///
/// ```swift
/// TerminalText.visible("Alice\u{1B}]0;owned\u{07}")   // "Alice\\x1B]0;owned\\x07"
/// ```
enum TerminalText {
    /// `text` with every control character shown as an escape: C0 (U+0000–U+001F, tab and
    /// newline included) and DEL as `\xHH`, C1 (U+0080–U+009F, which some terminals read as
    /// ESC sequences) and the bidirectional overrides and isolates (U+202A–U+202E,
    /// U+2066–U+2069, which reorder what is shown) as `\u{HHHH}`. Everything else is kept.
    /// - Parameter keepingLines: keep newline and tab as they are (for a multi-line body
    ///   shown as a whole, such as a resource's answer); everything else is still escaped.
    static func visible(_ text: String, keepingLines: Bool = false) -> String {
        let escapes = { (scalar: Unicode.Scalar) in
            needsEscape(scalar) && !(keepingLines && (scalar == "\n" || scalar == "\t"))
        }
        guard text.unicodeScalars.contains(where: escapes) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if !escapes(scalar) {
                result.unicodeScalars.append(scalar)
            } else if scalar.value < 0x80 {
                result += "\\x" + hex(scalar.value, digits: 2)
            } else {
                result += "\\u{" + hex(scalar.value, digits: 4) + "}"
            }
        }
        return result
    }

    /// Whether `scalar` must not reach a terminal as is.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
