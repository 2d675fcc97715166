import Foundation

/// The entry point of the `versola` executable.
public enum VersolaCommandLine {
    /// Parses and runs `arguments` (without the program name) and returns the exit status.
    public static func main(
        arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        console: any Console = StandardConsole()
    ) -> Int32 {
        let invocation: Invocation
        do {
            invocation = try CommandParser.parse(arguments, environment: environment)
        } catch {
            let json = arguments.contains("--json")
            console.err(ErrorReport.render(.usage(error), json: json))
            return ExitStatus.usage.rawValue
        }
        if case .help(let name) = invocation.command {
            console.out(HelpText.text(for: name) + "\n")
            return ExitStatus.success.rawValue
        }
        return ExitStatus.success.rawValue
    }
}
