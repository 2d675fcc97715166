import Foundation
import Testing

@testable import VersolaCommand

/// Each flag is declared once (``CommandFlag``) and that one declaration drives the parser,
/// `--help`, the completions and the man page. These tests fail when a declared flag does not
/// change what the parser returns, or when the parser accepts a flag that one of the texts
/// does not show.
@Suite("Flag declarations")
struct FlagDeclarationTests {
    // Declared but not parsed: every spelling of every flag must change the parsed command line.
    @Test func everyDeclaredFlagLandsInTheOptions() throws {
        for spec in CommandTable.commands {
            let plain = try CommandParser.parse([spec.name.rawValue] + CommandTableTests.samplePositionals(spec))
            for flag in spec.flags + CommandTable.globalFlags {
                for name in flag.names {
                    let arguments =
                        [spec.name.rawValue, name] + sampleValue(flag, name) + CommandTableTests.samplePositionals(spec)
                    let parsed = try CommandParser.parse(arguments)
                    #expect(parsed != plain, "\(arguments) parses as if the flag were not there")
                }
            }
        }
    }

    // Parsed but not shown: any flag spelled anywhere in the command's sources or the README
    // that a command accepts must be in its --help, its completions and the man page.
    @Test func everyAcceptedFlagIsShown() throws {
        let candidates = try flagLikeWords()
        #expect(candidates.contains("--force-refresh") && candidates.contains("-X"), "the sources were not read")
        let bash = CompletionScript.text(for: .bash)
        let zsh = CompletionScript.text(for: .zsh)
        let fishLines = CompletionScript.text(for: .fish).split(separator: "\n")
        let page = ManPage.text
        for spec in CommandTable.commands {
            let command = spec.name.rawValue
            let help = HelpText.text(for: spec.name) + "\n" + HelpText.text(for: nil)
            let bashArm = CommandTableTests.section(of: bash, from: "        \(command))\n", to: ";;\n\n")
            let zshArm = CommandTableTests.section(of: zsh, from: "        \(command)) _arguments", to: "\n")
            for name in candidates where accepts(spec, name) {
                #expect(help.contains(name), "\(command) takes \(name) but --help does not show it")
                #expect(bashArm.split(separator: " ").contains { $0.contains(name) }, "bash: \(command) \(name)")
                #expect(zshArm.contains("'\(name)["), "zsh: \(command) \(name)")
                let fishName = name.hasPrefix("--") ? "-l \(name.dropFirst(2))" : "-s \(name.dropFirst())"
                #expect(
                    fishLines.contains { $0.contains("'__fish_seen_subcommand_from \(command)' ") && $0.contains(" \(fishName) ") },
                    "fish: \(command) \(name)")
                #expect(page.contains("\\fB\(ManPage.escaped(name))\\fR"), "man page: \(command) \(name)")
            }
        }
    }

    // One declaration per spelling: no command lists a name twice, nor one of the global flags.
    @Test func eachSpellingIsDeclaredOnce() {
        for spec in CommandTable.commands {
            let names = (spec.flags + CommandTable.globalFlags).flatMap(\.names)
            #expect(Set(names).count == names.count, "\(spec.name.rawValue) declares a flag twice: \(names)")
        }
    }

    /// Whether `spec`'s command line takes `name`, with or without a value: a refusal of the
    /// value counts as taken, but not "unknown option", nor a value missing at the end.
    private func accepts(_ spec: CommandSpec, _ name: String) -> Bool {
        for value in [[], ["value"]] {
            do {
                _ = try CommandParser.parse([spec.name.rawValue, name] + value + CommandTableTests.samplePositionals(spec))
                return true
            } catch {
                if !error.message.hasPrefix("unknown option"), error.message != "\(name) needs a value" { return true }
            }
        }
        return false
    }

    /// Every `-x` and `--word` in a string literal of the command's sources, and in the README.
    private func flagLikeWords() throws -> Set<String> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var texts = [try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)]
        let sources = root.appendingPathComponent("Sources/VersolaCommand")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            if file.pathExtension == "swift" { texts.append(try String(contentsOf: file, encoding: .utf8)) }
        }
        var words = Set<String>()
        let pattern = try NSRegularExpression(pattern: #"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])"#)
        for text in texts {
            let range = NSRange(text.startIndex..., in: text)
            for match in pattern.matches(in: text, range: range) {
                if let found = Range(match.range(at: 1), in: text) { words.insert(String(text[found])) }
            }
        }
        return words
    }

    private func sampleValue(_ flag: FlagSpec, _ name: String) -> [String] {
        guard flag.value != nil else { return [] }
        let samples = [
            "--port": "8080", "--max-age": "60", "--idle-timeout": "60", "-H": "A: b", "--header": "A: b", "-X": "GET",
            "--request": "GET", "--auth-param": "access_type=offline", "--endpoint": "token=https://login.example.com/token",
            "--resource": "https://api.example.com/mcp", "--passphrase-fd": "3", "--client-secret-fd": "3",
        ]
        // The last choice: the first is often the default, which would change nothing.
        return [samples[name] ?? flag.choices.last ?? "value"]
    }
}
