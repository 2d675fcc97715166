import Foundation
import Versola
import VersolaHTTP

/// Turns `versola`'s arguments into an ``Invocation`` without running anything.
///
/// Flags take their value as the next argument or after `=` (`--profile work`,
/// `--profile=work`); `--json`, `--profile`, `--no-agent` and `--help` are accepted anywhere;
/// `--` ends the flags. What each flag does is declared once, in ``CommandTable``.
public enum CommandParser {
    /// Parses `arguments` (without the program name).
    /// - Parameter environment: consulted for `NO_COLOR`, `VERSOLA_NO_AGENT` and `VERSOLA_PROFILE`.
    /// - Throws: ``UsageError`` for anything not understood.
    public static func parse(_ arguments: [String], environment: [String: String] = [:]) throws(UsageError)
        -> Invocation
    {
        var settings = GlobalSettings(environment: environment)
        var cursor = ArgumentCursor(arguments)
        var name: CommandName?
        var flags: [ParsedFlag] = []
        var positionals: [String] = []
        while let argument = cursor.next() {
            if cursor.flagsEnded || argument == "-" || !argument.hasPrefix("-") {
                if name == nil, !cursor.flagsEnded {
                    guard let command = CommandName(rawValue: argument) else {
                        if argument == "help" {
                            settings.wantsHelp = true
                            continue
                        }
                        throw UsageError(CommandSuggestion.unknownCommand(argument))
                    }
                    name = command
                } else {
                    positionals.append(argument)
                }
            } else if argument == "--" {
                cursor.flagsEnded = true
            } else {
                let flag = try cursor.flag(argument, command: name)
                if let global = GlobalFlags.named(flag.name) {
                    try global.land(&settings, flag, FlagReader(command: name, flags: []))
                } else {
                    flags.append(flag)
                }
            }
        }
        var global = settings.options
        if settings.wantsHelp { return Invocation(command: .help(name), global: global) }
        if settings.wantsVersion { return Invocation(command: .version, global: global) }
        guard let name else { throw UsageError("no command given") }
        let command = try CommandTable.form(name).command(FlagReader(command: name, flags: flags), positionals: positionals)
        if !global.profileGiven { resourceProfile(for: command, into: &global) }
        return Invocation(command: command, global: global)
    }

    /// A19: a resource's profile is found from its URL alone when no profile is named.
    private static func resourceProfile(for command: Command, into global: inout GlobalOptions) {
        switch command {
        case .login(let options):
            if let name = options.resource.flatMap(ResourceProfile.name(for:)) { global.profile = name }
        case .token(let options):
            if let resource = options.resource, let name = ResourceProfile.name(for: resource) {
                global.profile = name
                global.resourceProfiles = [name] + (ResourceProfile.earlierName(for: resource).map { [$0] } ?? [])
            }
        case .request(let options):
            global.resourceProfiles = ResourceProfile.candidates(for: options.url)
        default:
            break
        }
    }
}

/// A flag as it appeared, with its value when it takes one.
struct ParsedFlag: Sendable, Hashable {
    var name: String
    var inlineValue: String?
    var value: String?
}

/// Walks the argument list.
struct ArgumentCursor {
    private var remaining: ArraySlice<String>
    /// Whether `--` was seen.
    var flagsEnded = false

    init(_ arguments: [String]) {
        remaining = arguments[...]
    }

    mutating func next() -> String? { remaining.popFirst() }

    /// The flag `argument` (`--name`, `--name=value`, `-X`), with its value read as the table
    /// says it takes one. The flags accepted everywhere ignore a value given after `=`.
    mutating func flag(_ argument: String, command: CommandName?) throws(UsageError) -> ParsedFlag {
        let (name, inline) = Self.split(argument)
        var flag = ParsedFlag(name: name, inlineValue: inline)
        if CommandTable.takesValue(name) {
            flag.value = try value(for: name, inline: inline, command: command)
        } else if let words = CommandTable.optionalValues(of: name) {
            flag.value = inline ?? nextIfOne(of: words)
        } else if inline != nil, GlobalFlags.named(name) == nil {
            throw UsageError("\(name) takes no value", command: command)
        }
        return flag
    }

    /// The next argument, taken only when it is one of `words`.
    private mutating func nextIfOne(of words: Set<String>) -> String? {
        guard !flagsEnded, let next = remaining.first, words.contains(next) else { return nil }
        return remaining.popFirst()
    }

    /// The value of `flag`: the inline one, else the next argument.
    private mutating func value(for flag: String, inline: String?, command: CommandName?) throws(UsageError) -> String {
        if let inline { return inline }
        guard let next = remaining.popFirst() else { throw UsageError("\(flag) needs a value", command: command) }
        return next
    }

    /// `--name=value` → (`--name`, `value`); anything else → (argument, nil).
    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}
