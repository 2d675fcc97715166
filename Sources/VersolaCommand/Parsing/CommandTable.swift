/// One flag of a command, as `--help`, the completions and the man page show it.
public struct FlagSpec: Sendable, Hashable {
    /// The spellings, short first (`-X`, `--request`).
    public var names: [String]
    /// The placeholder of the value it takes (`URL`), or nil for a switch.
    public var value: String?
    /// The values a completion offers, when the set is closed.
    public var choices: [String]
    /// For a switch whose value may be given or left out: the words taken as its value when
    /// one follows it (`--dpop off`; `--dpop` alone means `--dpop require`).
    public var optionalValues: [String]
    /// One line saying what it does.
    public var help: String

    /// Creates a flag.
    public init(
        _ names: [String], value: String? = nil, choices: [String] = [], optionalValues: [String] = [], help: String
    ) {
        self.names = names
        self.value = value
        self.choices = choices
        self.optionalValues = optionalValues
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

/// The one table of `versola`'s commands and flags. Each flag is declared once, in its
/// command's ``CommandForm`` (or in ``GlobalFlags``), with where its value lands; the parser
/// accepts exactly these flags, and `--help`, the shell completions and the man page are all
/// generated from the same declarations, so that none of them can drift from what the
/// command does.
public enum CommandTable {
    /// Flags accepted by every command.
    public static let globalFlags: [FlagSpec] = GlobalFlags.all.map(\.spec)

    /// Every command, in the order the overview lists them.
    public static let commands: [CommandSpec] = forms.map(\.spec)

    /// The declarations the entries are made from.
    static let forms: [CommandForm] = LoginCommandSpecs.all + ToolCommandSpecs.all + AdapterCommandSpecs.all

    /// The entry of `name`.
    public static func spec(_ name: CommandName) -> CommandSpec { form(name).spec }

    /// The declaration of `name`.
    static func form(_ name: CommandName) -> CommandForm {
        guard let form = forms.first(where: { $0.spec.name == name }) else {
            preconditionFailure("no table entry for \(name.rawValue)")
        }
        return form
    }

    /// Whether `flag` takes a value (for any command, or as a global flag).
    static func takesValue(_ flag: String) -> Bool { valued.contains(flag) }

    /// The words `flag` takes as its value when one follows it, for a flag whose value may be
    /// left out (for any command); nil for every other flag.
    static func optionalValues(of flag: String) -> Set<String>? { optional[flag] }

    private static let everyFlag = globalFlags + commands.flatMap(\.flags)

    private static let valued: Set<String> = Set(everyFlag.filter { $0.value != nil }.flatMap(\.names))

    private static let optional: [String: Set<String>] = Dictionary(
        everyFlag.filter { !$0.optionalValues.isEmpty }.flatMap { flag in flag.names.map { ($0, Set(flag.optionalValues)) } },
        uniquingKeysWith: { first, _ in first })
}
