import Foundation
import Versola
import VersolaHTTP

/// Turns `versola`'s arguments into an ``Invocation`` without running anything.
///
/// Flags take their value as the next argument or after `=` (`--profile work`,
/// `--profile=work`); `--json`, `--profile`, `--no-agent` and `--help` are accepted anywhere;
/// `--` ends the flags.
public enum CommandParser {
    /// Parses `arguments` (without the program name).
    /// - Parameter environment: consulted for `NO_COLOR`, `VERSOLA_NO_AGENT` and `VERSOLA_PROFILE`.
    /// - Throws: ``UsageError`` for anything not understood.
    public static func parse(_ arguments: [String], environment: [String: String] = [:]) throws(UsageError)
        -> Invocation
    {
        var global = GlobalOptions()
        global.color = (environment["NO_COLOR"] ?? "").isEmpty
        global.noAgent = ["1", "true", "yes"].contains(environment["VERSOLA_NO_AGENT"] ?? "")
        if let profile = environment["VERSOLA_PROFILE"], !profile.isEmpty {
            global.profile = profile
            global.profileGiven = true
        }
        var cursor = ArgumentCursor(arguments)
        var name: CommandName?
        var wantsHelp = false
        var wantsVersion = false
        var flags: [ParsedFlag] = []
        var positionals: [String] = []
        while let argument = cursor.next() {
            if cursor.flagsEnded || argument == "-" || !argument.hasPrefix("-") {
                if name == nil, !cursor.flagsEnded {
                    guard let command = CommandName(rawValue: argument) else {
                        if argument == "help" {
                            wantsHelp = true
                            continue
                        }
                        throw UsageError(CommandSuggestion.unknownCommand(argument))
                    }
                    name = command
                } else {
                    positionals.append(argument)
                }
                continue
            }
            if argument == "--" {
                cursor.flagsEnded = true
                continue
            }
            let (flag, inlineValue) = split(argument)
            switch flag {
            case "--json": global.json = true
            case "--no-agent": global.noAgent = true
            case "--verbose", "-v": global.verbose = true
            case "--help", "-h": wantsHelp = true
            case "--version": wantsVersion = true
            case "--profile":
                global.profile = try cursor.value(for: flag, inline: inlineValue, command: name)
                global.profileGiven = true
            default:
                flags.append(ParsedFlag(name: flag, inlineValue: inlineValue))
                if CommandTable.takesValue(flag) {
                    flags[flags.count - 1].value = try cursor.value(for: flag, inline: inlineValue, command: name)
                } else if let accepted = Self.optionalValues[flag] {
                    flags[flags.count - 1].value = inlineValue ?? cursor.nextIfOne(of: accepted)
                } else if inlineValue != nil {
                    throw UsageError("\(flag) takes no value", command: name)
                }
            }
        }
        if wantsHelp { return Invocation(command: .help(name), global: global) }
        if wantsVersion { return Invocation(command: .version, global: global) }
        guard let name else { throw UsageError("no command given") }
        let command = try build(name, flags: flags, positionals: positionals)
        if !global.profileGiven { resourceProfile(for: command, into: &global) }
        return Invocation(command: command, global: global)
    }

    /// A19: a resource's profile is found from its URL alone when no profile is named.
    private static func resourceProfile(for command: Command, into global: inout GlobalOptions) {
        switch command {
        case .login(let options):
            if let name = options.resource.flatMap(ResourceProfile.name(for:)) { global.profile = name }
        case .token(let options):
            if let name = options.resource.flatMap(ResourceProfile.name(for:)) { global.profile = name }
        case .request(let options):
            global.resourceProfiles = ResourceProfile.candidates(for: options.url)
        default:
            break
        }
    }

    /// Flags whose value may be left out: the next argument is their value only when it is one
    /// of these words (`--dpop off`; `--dpop` alone means `--dpop require`).
    private static let optionalValues: [String: Set<String>] = [
        "--dpop": Set(DPoPMode.allCases.map(\.rawValue))
    ]

    /// `--name=value` → (`--name`, `value`); anything else → (argument, nil).
    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func build(_ name: CommandName, flags: [ParsedFlag], positionals: [String]) throws(UsageError)
        -> Command
    {
        let reader = FlagReader(command: name, flags: flags)
        // The table is the gate: a flag it does not list for the command is refused here.
        let spec = CommandTable.spec(name)
        for flag in flags where spec.flag(named: flag.name) == nil { try reader.unknown(flag) }
        let command: Command
        switch name {
        case .login:
            var options = LoginOptions()
            for flag in reader.flags {
                switch flag.name {
                case "--issuer": options.issuer = flag.value
                case "--client-id": options.clientID = flag.value
                case "--scope": options.scopes += (flag.value ?? "").split(separator: " ").map(String.init)
                case "--dpop":
                    guard let mode = DPoPMode(rawValue: flag.value ?? DPoPMode.require.rawValue) else {
                        throw UsageError("--dpop must be auto, require or off", command: name)
                    }
                    options.dpop = mode
                case "--no-dpop": options.dpop = .off
                case "--browser-command": options.browserCommand = flag.value
                case "--no-browser": options.noBrowser = true
                case "--device": options.device = true
                case "--port": options.port = try reader.number(flag, in: 0...65535).map(UInt16.init)
                case "--redirect-path": options.redirectPath = flag.value
                case "--redirect-scheme": options.redirectScheme = flag.value ?? ""
                case "--ca-file": options.caFile = flag.value
                case "--acr-values": options.acrValues += (flag.value ?? "").split(separator: " ").map(String.init)
                case "--max-age": options.maxAge = try reader.number(flag, in: 0...Int(Int32.max))
                case "--login-hint": options.loginHint = flag.value
                case "--prompt": options.prompt = flag.value
                case "--key-source":
                    guard let kind = KeySourceKind(rawValue: flag.value ?? "") else {
                        throw UsageError("--key-source must be file, secret-service or passphrase", command: name)
                    }
                    options.keySource = kind
                case "--passphrase-fd": options.passphraseDescriptor = try reader.descriptor(flag)
                case "--client-secret-file": options.clientSecretFile = flag.value
                case "--client-secret-fd": options.clientSecretDescriptor = try reader.descriptor(flag)
                case "--auth-param":
                    let (key, value) = try reader.authorizationParameter(flag)
                    options.authorizationParameters[key] = value
                case "--endpoint":
                    let (endpoint, url) = try reader.endpoint(flag)
                    options.endpoints[endpoint] = url
                case "--resource": options.resource = try reader.resource(flag)
                default: try reader.unknown(flag)
                }
            }
            try reader.expect(positionals, count: 0)
            if options.clientSecretFile != nil && options.clientSecretDescriptor != nil {
                throw UsageError("give the client secret once: --client-secret-file or --client-secret-fd", command: name)
            }
            if options.device && options.noBrowser {
                throw UsageError(
                    "--device (a code to enter on another device) and --no-browser (paste the redirect here) are two "
                        + "ways to sign in without a browser; choose one", command: name)
            }
            command = .login(options)
        case .token:
            var options = TokenOptions()
            for flag in reader.flags {
                switch flag.name {
                case "--force-refresh": options.forceRefresh = true
                case "--format":
                    guard let format = TokenFormat(rawValue: flag.value ?? "") else {
                        throw UsageError("--format must be raw, json or k8s", command: name)
                    }
                    options.format = format
                case "--token": options.token = try reader.tokenKind(flag)
                case "--resource": options.resource = try reader.resource(flag)
                default: try reader.unknown(flag)
                }
            }
            try reader.expect(positionals, count: 0)
            command = .token(options)
        case .status:
            var options = StatusOptions()
            for flag in reader.flags {
                switch flag.name {
                case "--watch": options.watch = true
                default: try reader.unknown(flag)
                }
            }
            try reader.expect(positionals, count: 0)
            command = .status(options)
        case .userInfo:
            for flag in reader.flags { try reader.unknown(flag) }
            try reader.expect(positionals, count: 0)
            command = .userInfo
        case .logout:
            var options = LogoutOptions()
            for flag in reader.flags {
                switch flag.name {
                case "--end-session": options.endSession = true
                default: try reader.unknown(flag)
                }
            }
            try reader.expect(positionals, count: 0)
            command = .logout(options)
        case .unlock:
            var options = UnlockOptions()
            for flag in reader.flags {
                switch flag.name {
                case "--passphrase-fd": options.passphraseDescriptor = try reader.descriptor(flag)
                default: try reader.unknown(flag)
                }
            }
            try reader.expect(positionals, count: 0)
            command = .unlock(options)
        case .request:
            var method: String?
            var headers: [HeaderArgument] = []
            var data: String?
            var fail = false
            for flag in reader.flags {
                let value = flag.value ?? ""
                switch flag.name {
                case "-X", "--request":
                    guard !value.isEmpty, value.utf8.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) })
                    else { throw UsageError("-X needs a method name such as GET or POST", command: name) }
                    method = value.uppercased()
                case "-H", "--header":
                    guard let colon = value.firstIndex(of: ":"), colon != value.startIndex else {
                        throw UsageError("-H needs 'Name: value'", command: name)
                    }
                    let field = String(value[..<colon]).trimmingBlanks
                    let content = String(value[value.index(after: colon)...]).trimmingBlanks
                    guard !field.isEmpty, !field.contains(" ") else {
                        throw UsageError("-H needs 'Name: value'", command: name)
                    }
                    headers.append(HeaderArgument(name: field, value: content))
                case "-d", "--data": data = value
                case "--fail", "-f": fail = true
                default: try reader.unknown(flag)
                }
            }
            try reader.expect(positionals, count: 1, what: "a URL")
            command = .request(RequestOptions(method: method, headers: headers, data: data, url: positionals[0], fail: fail))
        case .handleRedirect:
            for flag in reader.flags { try reader.unknown(flag) }
            try reader.expect(positionals, count: 1, what: "the redirect URL")
            command = .handleRedirect(url: positionals[0])
        case .verify:
            var issuer: String?
            var audience: String?
            var caFile: String?
            var type: VerifiedTokenType?
            for flag in reader.flags {
                switch flag.name {
                case "--issuer": issuer = flag.value
                case "--audience": audience = flag.value
                case "--ca-file": caFile = flag.value
                case "--type":
                    guard let value = flag.value, let known = VerifiedTokenType(rawValue: value) else {
                        throw UsageError("--type takes at+jwt (RFC 9068 access tokens)", command: .verify)
                    }
                    type = known
                default: try reader.unknown(flag)
                }
            }
            try reader.expect(positionals, count: 1, what: "a token (or - to read it from standard input)")
            command = .verify(
                VerifyOptions(issuer: issuer, audience: audience, caFile: caFile, type: type, token: positionals[0]))
        case .agent:
            var options = AgentOptions()
            for flag in reader.flags {
                switch flag.name {
                case "--idle-timeout":
                    options.idleTimeoutSeconds = try reader.number(flag, in: 1...86_400) ?? options.idleTimeoutSeconds
                case "--stop": options.stop = true
                default: try reader.unknown(flag)
                }
            }
            try reader.expect(positionals, count: 0)
            command = .agent(options)
        case .gitCredential, .setupGit, .setupKubectl, .profiles, .completion, .man:
            command = try ToolCommandParser.build(name, reader: reader, positionals: positionals)
        }
        return command
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

    /// The next argument, taken only when it is one of `words`.
    mutating func nextIfOne(of words: Set<String>) -> String? {
        guard !flagsEnded, let next = remaining.first, words.contains(next) else { return nil }
        return remaining.popFirst()
    }

    /// The value of `flag`: the inline one, else the next argument.
    mutating func value(for flag: String, inline: String?, command: CommandName?) throws(UsageError) -> String {
        if let inline { return inline }
        guard let next = remaining.popFirst() else { throw UsageError("\(flag) needs a value", command: command) }
        return next
    }
}

/// Checks a command's flags and positionals.
struct FlagReader {
    let command: CommandName
    let flags: [ParsedFlag]

    init(command: CommandName, flags: [ParsedFlag]) {
        self.command = command
        self.flags = flags
    }

    func unknown(_ flag: ParsedFlag) throws(UsageError) {
        let names = (CommandTable.spec(command).flags + CommandTable.globalFlags).flatMap(\.names)
        let near = CommandSuggestion.closest(to: flag.name, among: names)
        throw UsageError(
            "unknown option \(flag.name) for '\(command.rawValue)'" + (near.map { "; did you mean \($0)?" } ?? ""),
            command: command)
    }

    func number(_ flag: ParsedFlag, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = flag.value, let value = Int(text), range.contains(value) else {
            throw UsageError("\(flag.name) needs a whole number in \(range.lowerBound)…\(range.upperBound)", command: command)
        }
        return value
    }

    /// The value of `--passphrase-fd`: a descriptor number.
    func descriptor(_ flag: ParsedFlag) throws(UsageError) -> Int32? {
        try number(flag, in: 0...Int(Int32.max)).map(Int32.init)
    }

    /// The value of `--token`: `access` or `id`.
    func tokenKind(_ flag: ParsedFlag) throws(UsageError) -> TokenKind {
        guard let kind = TokenKind(rawValue: flag.value ?? "") else {
            throw UsageError("--token must be access or id", command: command)
        }
        return kind
    }

    func expect(_ positionals: [String], count: Int, what: String = "") throws(UsageError) {
        if positionals.count < count { throw UsageError("'\(command.rawValue)' needs \(what)", command: command) }
        if positionals.count > count {
            throw UsageError("unexpected argument '\(positionals[count])'", command: command)
        }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingBlanks: String {
        var characters = Substring(self)
        while let first = characters.first, first == " " || first == "\t" { characters.removeFirst() }
        while let last = characters.last, last == " " || last == "\t" { characters.removeLast() }
        return String(characters)
    }
}
