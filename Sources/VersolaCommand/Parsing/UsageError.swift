/// A command line that cannot be understood: exit status 2, with the command's usage line.
public struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in one line.
    public var message: String
    /// The command whose usage to show, when known.
    public var command: CommandName?

    /// Creates an error.
    public init(_ message: String, command: CommandName? = nil) {
        self.message = message
        self.command = command
    }

    public var description: String { message }
}
