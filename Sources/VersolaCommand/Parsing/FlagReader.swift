/// Checks a command's flags and positionals, and reads the values of its flags.
struct FlagReader {
    /// The command, once its name has been read.
    let command: CommandName?
    let flags: [ParsedFlag]

    init(command: CommandName?, flags: [ParsedFlag]) {
        self.command = command
        self.flags = flags
    }

    /// Refuses `flag`, naming the closest flag the command takes.
    func unknown(_ flag: ParsedFlag) throws(UsageError) {
        let own = command.map { CommandTable.spec($0).flags } ?? []
        let near = CommandSuggestion.closest(to: flag.name, among: (own + CommandTable.globalFlags).flatMap(\.names))
        throw UsageError(
            "unknown option \(flag.name) for '\(command?.rawValue ?? "")'" + (near.map { "; did you mean \($0)?" } ?? ""),
            command: command)
    }

    func number(_ flag: ParsedFlag, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let text = flag.value, let value = Int(text), range.contains(value) else {
            throw UsageError("\(flag.name) needs a whole number in \(range.lowerBound)…\(range.upperBound)", command: command)
        }
        return value
    }

    func expect(_ positionals: [String], count: Int, what: String = "") throws(UsageError) {
        if positionals.count < count {
            throw UsageError("'\(command?.rawValue ?? "")' needs \(what)", command: command)
        }
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
