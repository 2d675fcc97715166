import Foundation

/// The entry point of the `versola` executable.
public enum VersolaCommandLine {
    /// Parses and runs `arguments` (without the program name) and returns the exit status.
    /// Blocks the calling thread, which must not be one of Swift's cooperative pool (the
    /// executable calls it from the main thread).
    /// - Parameter executable: the `versola` binary, used to start the session agent on demand.
    public static func main(
        arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        console: any Console = StandardConsole(), executable: String? = currentExecutable()
    ) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        guard let invocation = parse(arguments, environment: environment, console: console) else {
            return ExitStatus.usage.rawValue
        }
        let context = CommandContext(
            invocation: invocation, environment: environment, console: console, executable: executable)
        if case .agent(let options) = invocation.command {
            return CommandRunner.runAgent(options, context: context).rawValue
        }
        return SyncBridge.wait { await CommandRunner.run(context) }.rawValue
    }

    /// The program names that stand for a command, for links to the binary: docker runs its
    /// credential helper as `docker-credential-versola` (``AdapterCommandSpecs/dockerCredential``).
    public static let commandNames: [String: CommandName] = ["docker-credential-versola": .dockerCredential]

    /// The arguments to parse when the program was run as `name` (its `argv[0]`): the command a
    /// link's name stands for comes first; cargo's credential provider when cargo runs it (cargo
    /// starts a provider as `PATH --cargo-plugin` alone and sends the configured words, here
    /// `cargo-credential`, inside each request); else `arguments` as they are.
    public static func arguments(invokedAs name: String, _ arguments: [String]) -> [String] {
        let base = name.split(separator: "/").last.map(String.init) ?? name
        if let command = commandNames[base] { return [command.rawValue] + arguments }
        if arguments == [cargoPluginFlag] { return [CommandName.cargoCredential.rawValue, cargoPluginFlag] }
        return arguments
    }

    /// The one argument cargo gives a credential provider it starts.
    static let cargoPluginFlag = "--cargo-plugin"

    /// The absolute path people run as `versola`, for other programs to run (kubectl's exec
    /// plugin): the front beside this engine when there is one, so that their `versola token`
    /// takes the warm path (`PREFIX/bin/versola` for the installed `PREFIX/libexec/versola/versola`;
    /// `versola-front` in a build directory), else this executable. Nil when unknown.
    public static func userCommand(executable: String? = currentExecutable()) -> String? {
        guard let executable else { return nil }
        let directory = (executable as NSString).deletingLastPathComponent
        let candidate: String
        if directory.hasSuffix("/libexec/versola") {
            let prefix = ((directory as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
            candidate = prefix + "/bin/versola"
        } else {
            candidate = directory + "/versola-front"
        }
        var own = stat()
        var other = stat()
        guard access(candidate, X_OK) == 0, stat(executable, &own) == 0, stat(candidate, &other) == 0,
            own.st_dev != other.st_dev || own.st_ino != other.st_ino
        else { return executable }
        return candidate
    }

    /// The path of the running executable (`/proc/self/exe`), or nil when unknown.
    public static func currentExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The command line's invocation; nil, with the usage error reported (as JSON when
    /// `--json` was given), when it cannot be read.
    static func parse(_ arguments: [String], environment: [String: String], console: any Console) -> Invocation? {
        do {
            return try CommandParser.parse(arguments, environment: environment)
        } catch {
            console.err(ErrorReport.render(.usage(error), json: arguments.contains("--json")))
            return nil
        }
    }
}
