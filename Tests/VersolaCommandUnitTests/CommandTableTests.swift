import Foundation
import Testing

@testable import VersolaCommand

/// `--help`, the completions, the man page, the parser and the README all follow the one
/// command table; these tests fail as soon as one of them drifts.
@Suite("Command table")
struct CommandTableTests {
    @Test func everyCommandHasOneEntry() {
        #expect(CommandTable.commands.map(\.name) == CommandTable.commands.map(\.name).uniqued)
        #expect(Set(CommandTable.commands.map(\.name)) == Set(CommandName.allCases))
    }

    @Test func helpShowsEveryFlag() {
        for spec in CommandTable.commands {
            let help = HelpText.text(for: spec.name)
            #expect(help.hasPrefix("usage: versola \(spec.name.rawValue)"))
            for flag in spec.flags {
                for name in flag.names { #expect(help.contains(name), "\(spec.name.rawValue) --help lacks \(name)") }
                #expect(help.contains(flag.help))
            }
            #expect(HelpText.text(for: nil).contains("  \(spec.name.rawValue) "))
        }
        for flag in CommandTable.globalFlags { #expect(HelpText.text(for: nil).contains(flag.label)) }
    }

    @Test func completionsOfferEveryCommandAndFlag() {
        let bash = CompletionScript.text(for: .bash)
        let zsh = CompletionScript.text(for: .zsh)
        let fish = CompletionScript.text(for: .fish)
        for spec in CommandTable.commands {
            let command = spec.name.rawValue
            let bashArm = Self.section(of: bash, from: "        \(command))\n", to: ";;\n\n")
            let zshArm = Self.section(of: zsh, from: "        \(command)) _arguments", to: "\n")
            #expect(fish.contains("__fish_use_subcommand -a \(command) "))
            for flag in spec.flags + CommandTable.globalFlags {
                for name in flag.names {
                    #expect(bashArm.split(separator: " ").contains { $0.contains(name) }, "bash: \(command) \(name)")
                    #expect(zshArm.contains("'\(name)["), "zsh: \(command) \(name)")
                    let fishName = name.hasPrefix("--") ? "-l \(name.dropFirst(2))" : "-s \(name.dropFirst())"
                    #expect(
                        fish.contains("'__fish_seen_subcommand_from \(command)' \(fishName)")
                            || fish.split(separator: "\n").contains {
                                $0.contains("'__fish_seen_subcommand_from \(command)'") && $0.contains(" \(fishName) ")
                            }, "fish: \(command) \(name)")
                }
                for choice in flag.choices { #expect(bashArm.contains(choice) && zshArm.contains(choice)) }
            }
            for choice in spec.argumentChoices { #expect(bashArm.contains(choice) && zshArm.contains(choice)) }
        }
    }

    @Test func manPageHasASectionPerCommandAndFlag() {
        let page = ManPage.text
        #expect(page.hasPrefix(".TH VERSOLA 1"))
        for spec in CommandTable.commands {
            #expect(page.contains(".SS \(ManPage.escaped(spec.name.rawValue))\n"))
            for flag in spec.flags + CommandTable.globalFlags {
                for name in flag.names { #expect(page.contains("\\fB\(ManPage.escaped(name))\\fR")) }
            }
        }
        // No line of text may start a roff request by accident.
        for line in page.split(separator: "\n") where !line.hasPrefix(".") {
            #expect(!line.hasPrefix("'"))
        }
    }

    // The table is the parser's gate: every flag it lists parses, and no other does.
    @Test func parserAcceptsExactlyTheTable() throws {
        for spec in CommandTable.commands {
            for flag in spec.flags {
                for name in flag.names {
                    var arguments = [spec.name.rawValue, name]
                    if flag.value != nil { arguments.append(flag.choices.first ?? sampleValue(name)) }
                    arguments += Self.samplePositionals(spec)
                    do {
                        _ = try CommandParser.parse(arguments)
                    } catch {
                        #expect(!error.message.hasPrefix("unknown option"), "\(arguments): \(error.message)")
                    }
                }
            }
            let foreign = CommandTable.commands.flatMap(\.flags).flatMap(\.names).first { spec.flag(named: $0) == nil }
            if let foreign {
                let arguments = [spec.name.rawValue, foreign] + (CommandTable.takesValue(foreign) ? ["x"] : [])
                #expect(throws: UsageError.self) { try CommandParser.parse(arguments + Self.samplePositionals(spec)) }
            }
        }
    }

    @Test func readmeListsEveryCommand() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| `") }
        for spec in CommandTable.commands {
            let row = rows.first { $0.hasPrefix("| `\(spec.name.rawValue)") }
            #expect(row != nil, "README's command table lacks \(spec.name.rawValue)")
            for flag in spec.flags {
                let shown = flag.names.contains { name in row?.contains(name) == true }
                #expect(shown, "README's row of \(spec.name.rawValue) lacks \(flag.names[0])")
            }
        }
    }

    @Test func mistypedCommandsGetASuggestion() {
        #expect(throws: UsageError("unknown command 'tokn'; did you mean 'token'?")) { try CommandParser.parse(["tokn"]) }
        #expect(CommandSuggestion.closest(to: "stauts") == "status")
        #expect(CommandSuggestion.closest(to: "setup") == "setup-git")
        #expect(CommandSuggestion.closest(to: "git-credentials") == "git-credential")
        #expect(CommandSuggestion.closest(to: "frobnicate") == nil)
        #expect(throws: UsageError("unknown option --forse-refresh for 'token'; did you mean --force-refresh?", command: .token)) {
            try CommandParser.parse(["token", "--forse-refresh"])
        }
    }

    @Test func versionProfileVariableAndToolCommands() throws {
        #expect(try CommandParser.parse(["--version"]).command == .version)
        #expect(try CommandParser.parse(["status"], environment: ["VERSOLA_PROFILE": "work"]).global.profile == "work")
        #expect(
            try CommandParser.parse(["status", "--profile", "home"], environment: ["VERSOLA_PROFILE": "work"]).global.profile
                == "home")
        #expect(try CommandParser.parse(["git-credential", "get"]).command == .gitCredential(.get))
        #expect(throws: UsageError.self) { try CommandParser.parse(["git-credential", "fill"]) }
        #expect(try CommandParser.parse(["setup-git", "--host", "h"]).command == .setupGit(SetupGitOptions(host: "h")))
        #expect(try CommandParser.parse(["completion", "zsh"]).command == .completion(.zsh))
        #expect(throws: UsageError.self) { try CommandParser.parse(["completion", "tcsh"]) }
        #expect(try CommandParser.parse(["request", "--fail", "http://x"]).command
            == .request(RequestOptions(url: "http://x", fail: true)))
    }

    private func sampleValue(_ flag: String) -> String {
        ["--port": "8080", "--max-age": "60", "--idle-timeout": "60", "-H": "A: b", "--header": "A: b", "-X": "GET",
         "--request": "GET"][flag] ?? "value"
    }

    /// Positional arguments `spec`'s command takes (also for ``FlagDeclarationTests``).
    static func samplePositionals(_ spec: CommandSpec) -> [String] {
        if let first = spec.argumentChoices.first { return [first] }
        return spec.arguments.isEmpty ? [] : ["http://127.0.0.1/x"]
    }

    /// The part of `text` from `start` to `end` (a command's arm of a completion script).
    static func section(of text: String, from start: String, to end: String) -> String {
        guard let lower = text.range(of: start) else { return "" }
        let rest = text[lower.upperBound...]
        return String(rest[..<(rest.range(of: end)?.lowerBound ?? rest.endIndex)])
    }
}

extension Array where Element: Hashable {
    fileprivate var uniqued: [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
