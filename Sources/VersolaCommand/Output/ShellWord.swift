import Foundation

/// Words of a command line the person may copy into a shell (L5): each value is quoted so
/// that the shell reads it back as exactly one word and runs nothing.
///
/// ```swift
/// ShellWord.quoted("urn:mfa")        // urn:mfa
/// ShellWord.quoted("a b")            // 'a b'
/// ShellWord.quoted("x'; touch y")    // 'x'\''; touch y'
/// ```
enum ShellWord {
    /// `word` unchanged when it holds only characters no shell treats specially
    /// (`A-Z a-z 0-9 - . _ / : = @ % + ,`), otherwise in single quotes with each `'` written
    /// as `'\''`. Control characters are made visible first (``TerminalText``), so the
    /// terminal shows the word as the shell would get it.
    static func quoted(_ word: String) -> String {
        let shown = TerminalText.visible(word)
        if !shown.isEmpty, shown.utf8.allSatisfy(isPlain) { return shown }
        return "'" + shown.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("-._/:=@%+,".utf8).contains(byte)
        }
    }
}
