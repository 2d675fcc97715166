import Versola
import VersolaJOSE

/// `versola setup-cargo --registry NAME --index sparse+URL`: records the sparse index in the
/// target table and prints the cargo config (`[registries.NAME]`) whose credential provider is
/// this versola; nothing of cargo's is written.
struct SetupCargoCommand {
    let context: CommandContext

    func run(_ options: SetupCargoOptions) throws(CommandFailure) {
        let missing = UsageError(
            "name the registry and its index: versola setup-cargo --registry NAME --index sparse+https://crates.example.com/index/",
            command: .setupCargo)
        guard let name = options.registry else { throw .usage(missing) }
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") })
        else {
            throw .usage(UsageError("--registry needs a cargo registry name (letters, digits, - and _)", command: .setupCargo))
        }
        let key = try TargetSetup.key(options.index, for: .cargo, flag: "--index", missing: missing)
        let given = options.index ?? ""
        let index = given.hasPrefix("sparse+") ? given : "sparse+" + given
        let target = CredentialTarget(
            tool: .cargo, key: key, profile: context.profile, token: options.token, authorization: options.authorization,
            registry: name)
        try TargetSetup.record(target, context)
        let command = VersolaCommandLine.userCommand() ?? "versola"
        if context.invocation.global.json {
            context.console.out(TargetSetup.summary(target, extra: [("registry", .string(name)), ("index", .string(index))]))
            return
        }
        context.console.out(Self.config(registry: name, index: index, command: command))
        context.console.err(
            "cargo asks versola (profile \(context.profile)) for the registry \(name) once this is in ~/.cargo/config.toml\n")
    }

    /// The TOML: strings written as JSON strings, which TOML reads as the same basic strings.
    static func config(registry: String, index: String, command: String) -> String {
        func quoted(_ text: String) -> String { JSONValue.string(text).serialized() }
        return """
            [registries.\(registry)]
            index = \(quoted(index))
            credential-provider = [\(quoted(command)), "cargo-credential"]

            """
    }
}
