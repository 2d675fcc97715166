import Versola

/// The text `--help` prints, per command, generated from ``CommandTable``.
public enum HelpText {
    /// The help of `command`, or the overview when `nil`.
    public static func text(for command: CommandName?) -> String {
        guard let command else { return overview }
        let spec = CommandTable.spec(command)
        var text = usage(of: spec) + "\n\n" + spec.details
        if !spec.flags.isEmpty { text += "\n\n" + table(spec.flags.map { ($0.label, $0.help) }) }
        return text
    }

    /// The usage of `command` (its synopsis, wrapped), shown after a usage error.
    public static func usageLine(for command: CommandName?) -> String {
        guard let command else { return overview.split(separator: "\n").first.map(String.init) ?? "" }
        return usage(of: CommandTable.spec(command))
    }

    /// `usage: versola login [--issuer URL] … [--profile NAME] [--json]` on one line.
    public static func usage(of spec: CommandSpec) -> String {
        let head = "usage: versola " + spec.name.rawValue
        return wrapped(synopsis(of: spec), after: head, indent: String(repeating: " ", count: head.count + 1))
    }

    /// `head` and the words of `text`, wrapped before 100 columns.
    static func wrapped(_ text: String, after head: String, indent: String) -> String {
        var lines: [String] = []
        var line = head
        for word in synopsisWords(text) {
            if line.count + 1 + word.count > 100, line != head, line != indent {
                lines.append(line)
                line = indent + word
            } else {
                line += (line == indent ? "" : " ") + word
            }
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// The bracketed groups of a synopsis, kept whole (`[-H 'Name: value']`).
    private static func synopsisWords(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var depth = 0
        for character in text {
            if character == "[" { depth += 1 }
            if character == "]" { depth -= 1 }
            if character == " ", depth == 0 {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// The flags and arguments of `spec`, each optional flag in brackets.
    public static func synopsis(of spec: CommandSpec) -> String {
        let flags = spec.flags.map { "[" + $0.names.joined(separator: "|") + ($0.value.map { " " + $0 } ?? "") + "]" }
        return (flags + ["[--profile NAME]", "[--json]", spec.arguments]).filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// The version line of `--version`.
    public static var versionLine: String { "versola \(VersolaVersion.current)" }

    static var overview: String {
        """
        usage: versola <command> [options]   (versola <command> --help for its options)

        Sign in to an OpenID Connect provider from a terminal and hand tokens to other tools.

        commands:
        \(table(CommandTable.commands.map { ($0.name.rawValue, $0.summary) }))

        options accepted everywhere:
        \(table(CommandTable.globalFlags.map { ($0.label, $0.help) }))

        exit status: 0 success, 1 signed out (status), 2 usage, 3 try again later, 4 sign in again,
        5 step-up needed, 6 configuration, 22 HTTP error (request --fail). NO_COLOR disables colour.
        """
    }

    /// Two aligned columns, indented by two spaces.
    static func table(_ rows: [(String, String)]) -> String {
        let width = (rows.map(\.0.count).max() ?? 0) + 2
        return rows.map { "  " + $0.0.padding(to: width) + $0.1 }.joined(separator: "\n")
    }
}

extension String {
    /// This string with spaces appended up to `width` characters.
    fileprivate func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
