import Foundation
import Versola
import VersolaJOSE

/// `versola setup-docker --host H`: records the registry in the target table and prints (or,
/// with `--write`, merges into docker's config file) `{"credHelpers": {"H": "versola"}}`, so
/// docker runs `docker-credential-versola` for that registry alone.
struct SetupDockerCommand {
    let context: CommandContext

    func run(_ options: SetupDockerOptions) throws(CommandFailure) {
        let missing = UsageError("name the registry: versola setup-docker --host registry.example.com", command: .setupDocker)
        let key = try TargetSetup.key(options.host, for: .docker, flag: "--host", missing: missing)
        guard case .host(let host) = key else { return }
        let target = CredentialTarget(
            tool: .docker, key: key, profile: context.profile, token: options.token, username: options.username)
        try TargetSetup.record(target, context)
        let fragment: JSONValue = ["credHelpers": .object(JSONObject([(host.authority, JSONValue.string("versola"))]))]
        var written: String?
        if options.write {
            do throws(VersolaError) { written = try DockerConfigFile(environment: context.environment).addHelper(for: host.authority) } catch {
                throw .versola(error)
            }
        }
        if context.invocation.global.json {
            let extra: [(String, JSONValue)] = [("dockerConfig", fragment), ("written", written.map { .string($0) } ?? .null)]
            context.console.out(TargetSetup.summary(target, extra: extra))
            return
        }
        let served = "docker asks versola (profile \(context.profile), user \(target.username ?? "")) for \(host.authority)"
        if let written {
            context.console.out("\(served): \(written)\n")
        } else {
            context.console.out(fragment.serialized() + "\n")
            context.console.err("\(served) once this is in docker's config.json (or run again with --write)\n")
        }
    }
}
