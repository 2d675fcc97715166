import Foundation
import Testing
import Versola
import VersolaHTTP

@testable import VersolaCommand

@Suite("Terminal text and shell words")
struct ShellWordTests {
    @Test("L5: control characters are made visible; other text is kept")
    func visible() {
        #expect(TerminalText.visible("Alice <a@example.com>") == "Alice <a@example.com>")
        #expect(TerminalText.visible("Zoë 名前 🙂") == "Zoë 名前 🙂")
        #expect(TerminalText.visible("a\u{1B}]0;t\u{07}b") == #"a\x1B]0;t\x07b"#)
        #expect(TerminalText.visible("\t\n\r\u{0}\u{7F}") == #"\x09\x0A\x0D\x00\x7F"#)
        #expect(TerminalText.visible("\u{9B}31m") == #"\u{009B}31m"#)
        #expect(TerminalText.visible("evil\u{202E}gpj.exe") == #"evil\u{202E}gpj.exe"#)
        #expect(TerminalText.visible("x\u{2066}y\u{2069}") == #"x\u{2066}y\u{2069}"#)
        #expect(TerminalText.visible("{\n\t\"a\": 1\u{1B}[2J\n}", keepingLines: true) == "{\n\t\"a\": 1\\x1B[2J\n}")
        for value: UInt32 in Array(0...0x1F) + Array(0x7F...0x9F) {
            let text = TerminalText.visible(String(Character(Unicode.Scalar(value)!)))
            #expect(!text.unicodeScalars.contains { TerminalText.needsEscape($0) }, "U+\(String(value, radix: 16))")
        }
    }

    @Test("L5: a quoted word reaches a real shell as exactly that one word", arguments: [
        "urn:mfa", "a b", "x'; touch /tmp/x; echo '", "$(id)", "`id`", "it's", "''", "-n", "a\\b", "*", "~", "#c",
    ])
    func shellRoundTrip(_ word: String) throws {
        let quoted = ShellWord.quoted(word)
        #expect(try Self.shellWords("printf x " + quoted) == ["printf", "x", word])
    }

    @Test("L5: plain words stay unquoted; control characters are shown, not passed")
    func plainWords() {
        #expect(ShellWord.quoted("urn:mace:incommon:iap:silver") == "urn:mace:incommon:iap:silver")
        #expect(ShellWord.quoted("") == "''")
        #expect(ShellWord.quoted("a\u{1B}b") == #"'a\x1Bb'"#)
    }

    @Test("L5: the step-up advice quotes the values for the shell")
    func stepUpAdvice() {
        let sentence = ErrorReport.sentence(
            for: .stepUp(StepUpChallenge(acrValues: ["x';", "touch"], maxAge: 5)), profile: "work")
        #expect(sentence.hasSuffix(#"versola login --profile work --acr-values 'x'\''; touch' --max-age 5"#))
    }

    @Test("L5: error codes, descriptions and issuers from the provider reach the terminal made visible")
    func errorTextIsVisible() {
        let hostile = "x\u{1B}]52;c;AAAA\u{07}\u{9B}2J"
        let errors: [VersolaError] = [
            .configuration(.discoveryIssuerMismatch(expected: "https://id.example", actual: "https://id.example" + hostile)),
            .configuration(.idTokenRejected(IDTokenRejection(.issuerMismatch, "iss " + hostile + " is not https://id.example"))),
            .configuration(.authorizationRejected("invalid_request (" + hostile + ")")),
            .recoverable(.network(NetworkFailure(kind: .timedOut, requestBytesWritten: false, origin: "https://" + hostile))),
        ]
        for error in errors {
            let text = ErrorReport.render(.versola(error), json: false)
            #expect(!text.dropLast().unicodeScalars.contains { TerminalText.needsEscape($0) }, "\(text)")
            #expect(text.contains(#"x\x1B]52;c;AAAA\x07\u{009B}2J"#), "\(text)")
            // --json keeps the exact text (escaped by JSON), for programs.
            #expect(ErrorReport.object(for: .versola(error)).serialized().contains("\\u001b"))
        }
    }

    /// The words a real `sh` makes of `line` (each printed NUL-terminated by `printf`).
    static func shellWords(_ line: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "words() { for w in \"$@\"; do printf '%s\\0' \"$w\"; done; }; eval \"words $1\"", "sh", line]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\0", omittingEmptySubsequences: false).dropLast()
            .map(String.init)
    }
}
