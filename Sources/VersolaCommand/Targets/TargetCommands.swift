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
}
