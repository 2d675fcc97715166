/// One flag of a command, as `--help`, the completions and the man page show it.
public struct FlagSpec: Sendable, Hashable {
    /// The spellings, short first (`-X`, `--request`).
    public var names: [String]
    /// The placeholder of the value it takes (`URL`), or nil for a switch.
    public var value: String?
    /// The values a completion offers, when the set is closed.
    public var choices: [String]
    /// One line saying what it does.
    public var help: String

    /// Creates a flag.
    public init(_ names: [String], value: String? = nil, choices: [String] = [], help: String) {
        self.names = names
        self.value = value
        self.choices = choices
        self.help = help
    }

    /// `-X, --request METHOD`.
    public var label: String { names.joined(separator: ", ") + (value.map { " " + $0 } ?? "") }
}

/// One command of the table: its name, what it does, its flags and its arguments.
public struct CommandSpec: Sendable, Hashable {
    /// The command.
    public var name: CommandName
    /// One line for the overview.
    public var summary: String
    /// The positional arguments of the synopsis (`URL`, `get|store|erase`), empty for none.
    public var arguments: String
    /// The values a completion offers for the first argument, when the set is closed.
    public var argumentChoices: [String]
    /// The paragraph below the usage line.
    public var details: String
    /// The command's own flags (the global ones are in ``CommandTable/globalFlags``).
    public var flags: [FlagSpec]

    /// Creates a command entry.
    public init(
        _ name: CommandName, summary: String, arguments: String = "", argumentChoices: [String] = [],
        details: String, flags: [FlagSpec] = []
    ) {
        self.name = name
        self.summary = summary
        self.arguments = arguments
        self.argumentChoices = argumentChoices
        self.details = details
        self.flags = flags
    }

    /// The flag spelled `name`, when this command has it.
    public func flag(named name: String) -> FlagSpec? { flags.first { $0.names.contains(name) } }
}

/// The one table of `versola`'s commands and flags. The parser accepts exactly these flags,
/// and `--help`, the shell completions and the man page are all generated from it, so that
/// none of them can drift from what the command does.
public enum CommandTable {
    /// Flags accepted by every command.
    public static let globalFlags: [FlagSpec] = [
        FlagSpec(["--profile"], value: "NAME", help: "the profile to use (default: $VERSOLA_PROFILE, else default)"),
        FlagSpec(["--json"], help: "results and errors as JSON"),
        FlagSpec(["--no-agent"], help: "run in this process, without the session agent (also VERSOLA_NO_AGENT=1)"),
        FlagSpec(
            ["--verbose", "-v"],
            help: "show each HTTP exchange on stderr (method, URL without query values, status, time, retries), secrets left out; implies --no-agent"),
        FlagSpec(["--help", "-h"], help: "this help, or a command's"),
        FlagSpec(["--version"], help: "print the version and exit"),
    ]

    /// Every command, in the order the overview lists them.
    public static let commands: [CommandSpec] = LoginCommandSpecs.all + ToolCommandSpecs.all

    /// The entry of `name`.
    public static func spec(_ name: CommandName) -> CommandSpec {
        guard let spec = commands.first(where: { $0.name == name }) else {
            preconditionFailure("no table entry for \(name.rawValue)")
        }
        return spec
    }

    /// Whether `flag` takes a value (for any command, or as a global flag).
    static func takesValue(_ flag: String) -> Bool { valued.contains(flag) }

    private static let valued: Set<String> = Set(
        (globalFlags + commands.flatMap(\.flags)).filter { $0.value != nil }.flatMap(\.names))
}
