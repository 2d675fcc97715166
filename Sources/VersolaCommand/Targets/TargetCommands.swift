/// Runs the commands of the target table: the `setup-*` commands and the adapters.
enum TargetCommands {
    static func run(_ context: CommandContext) async throws(CommandFailure) -> ExitStatus {
        switch context.invocation.command {
        case .setupDocker(let options):
            try SetupDockerCommand(context: context).run(options)
        case .dockerCredential(let operation):
            return try await DockerCredentialCommand(context: context).run(operation)
        case .setupPip(let options):
            try SetupPipCommand(context: context).run(options)
        case .credential(let options):
            return try await CredentialCommand(context: context).run(options)
        case .setupCargo(let options):
            try SetupCargoCommand(context: context).run(options)
        case .cargoCredential(let options):
            try await CargoCredentialCommand(context: context).run(options)
        default:
            preconditionFailure("not a command of the target table")
        }
        return .success
    }

    /// Prints an adapter's answer the front handed over (``AgentReplyHandOver``); nil when the
    /// command is not one the front asks for (docker's `get`, `credential --url`).
    static func finish(_ reply: AgentReply, _ context: CommandContext) -> ExitStatus? {
        switch context.invocation.command {
        case .dockerCredential(.get):
            // The front put back on standard input the server address it read.
            let command = DockerCredentialCommand(context: context)
            return command.finish(reply, address: command.readInput().trimmingBlanks)
        case .credential(let options):
            return options.url.map { CredentialCommand(context: context).finish(reply, url: $0) }
        default:
            return nil
        }
    }
}
