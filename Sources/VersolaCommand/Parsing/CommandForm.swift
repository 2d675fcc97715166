/// One command of the table: its entry (``spec``, what `--help`, the completions and the man
/// page show) and how its command line becomes a ``Command``, both made from one list of
/// ``CommandFlag``s.
struct CommandForm: Sendable {
    /// The command's entry, with the ``FlagSpec`` of each of its flags.
    let spec: CommandSpec
    private let read: @Sendable (FlagReader, [String]) throws(UsageError) -> Command

    /// Creates a command whose flags land in `options`.
    /// - Parameters:
    ///   - argumentNeeded: what its one positional argument is, for the error when it is
    ///     missing (`"a URL"`); nil when it takes none.
    ///   - make: the command, from the options and the positional arguments.
    init<Options: Sendable>(
        _ name: CommandName, summary: String, arguments: String = "", argumentChoices: [String] = [],
        details: String, options: Options, flags: [CommandFlag<Options>] = [], argumentNeeded: String? = nil,
        make: @escaping @Sendable (Options, [String]) throws(UsageError) -> Command
    ) {
        spec = CommandSpec(
            name, summary: summary, arguments: arguments, argumentChoices: argumentChoices, details: details,
            flags: flags.map(\.spec))
        read = { reader, positionals throws(UsageError) in
            var built = options
            for parsed in reader.flags {
                guard let flag = flags.first(where: { $0.spec.names.contains(parsed.name) }) else {
                    try reader.unknown(parsed)
                    continue
                }
                try flag.land(&built, parsed, reader)
            }
            try reader.expect(positionals, count: argumentNeeded == nil ? 0 : 1, what: argumentNeeded ?? "")
            return try make(built, positionals)
        }
    }

    /// The command `reader`'s flags and `positionals` make; a flag the command does not take
    /// is refused before any value is looked at.
    func command(_ reader: FlagReader, positionals: [String]) throws(UsageError) -> Command {
        for flag in reader.flags where spec.flag(named: flag.name) == nil { try reader.unknown(flag) }
        return try read(reader, positionals)
    }
}
