/// Builds the commands of ``ToolCommandSpecs`` from their flags and arguments.
enum ToolCommandParser {
    static func build(_ name: CommandName, reader: FlagReader, positionals: [String]) throws(UsageError) -> Command {
        switch name {
        case .gitCredential:
            try reader.expect(positionals, count: 1, what: "get, store or erase")
            guard let operation = GitCredentialOperation(rawValue: positionals[0]) else {
                throw UsageError("'git-credential' takes get, store or erase, not '\(positionals[0])'", command: name)
            }
            return .gitCredential(operation)
        case .setupGit:
            var options = SetupGitOptions()
            for flag in reader.flags where flag.name == "--host" { options.host = flag.value }
            try reader.expect(positionals, count: 0)
            return .setupGit(options)
        case .setupKubectl:
            var options = SetupKubectlOptions()
            for flag in reader.flags {
                switch flag.name {
                case "--token": options.token = try reader.tokenKind(flag)
                case "--api-version":
                    guard let version = ExecCredentialVersion(named: flag.value ?? "") else {
                        throw UsageError("--api-version must be v1 or v1beta1", command: name)
                    }
                    options.apiVersion = version
                default: try reader.unknown(flag)
                }
            }
            try reader.expect(positionals, count: 0)
            return .setupKubectl(options)
        case .profiles:
            try reader.expect(positionals, count: 0)
            return .profiles
        case .completion:
            try reader.expect(positionals, count: 1, what: "a shell: bash, zsh or fish")
            guard let shell = CompletionShell(rawValue: positionals[0]) else {
                throw UsageError("'completion' knows bash, zsh and fish, not '\(positionals[0])'", command: name)
            }
            return .completion(shell)
        case .man:
            try reader.expect(positionals, count: 0)
            return .man
        default:
            preconditionFailure("\(name.rawValue) is not a tool command")
        }
    }
}
