import Versola
import VersolaJOSE

/// `docker-credential-versola get|store|erase|list`: the docker credential helper protocol
/// (docker, skopeo, podman, buildah). Standard output carries only the protocol's answers.
///
/// `get` answers a registry of the target table with the session's token; for any other
/// registry, and for one whose profile cannot give a token now, it exits 1 with docker's
/// "not found" line, so the client goes on without credentials (the reason goes to stderr).
struct DockerCredentialCommand {
    let context: CommandContext

    /// The line every docker credential helper answers for a credential it does not have.
    static let notFound = "credentials not found in native keychain"

    func run(_ operation: DockerCredentialOperation) async throws(CommandFailure) -> ExitStatus {
        let lookup = CredentialLookup(context: context)
        switch operation {
        case .list:
            let table = try lookup.table()
            let served = table.targets(of: .docker).compactMap { target -> (String, JSONValue)? in
                guard case .host(let host) = target.key else { return nil }
                return (host.authority, .string(target.username ?? ""))
            }
            context.console.out(JSONValue.object(JSONObject(served)).serialized() + "\n")
            return .success
        case .store:
            // `{"ServerURL":…,"Username":…,"Secret":…}`: the secret is read and dropped, never kept.
            let request = (try? JSONValue(parsing: Array(readInput().utf8))) ?? .null
            guard let address = request["ServerURL"]?.string, try lookup.target(.docker, address: address) != nil else {
                context.console.err(
                    "versola keeps no registry passwords: it serves only the registries set up with versola setup-docker\n")
                return .signedOut
            }
            return .success
        case .erase:
            // Nothing is stored; signing out is versola logout.
            return try lookup.target(.docker, address: readInput()) == nil ? notFound() : .success
        case .get:
            let address = readInput().trimmingBlanks
            guard let target = try lookup.target(.docker, address: address) else { return notFound() }
            do throws(CommandFailure) {
                let token = try await lookup.token(for: target)
                let answer: JSONValue = [
                    "ServerURL": .string(address), "Username": .string(target.username ?? ""), "Secret": .string(token.value),
                ]
                context.console.out(answer.serialized() + "\n")
                return .success
            } catch {
                context.console.err(ErrorReport.render(error, json: false, profile: target.profile))
                return notFound()
            }
        }
    }

    /// Docker's "not found": the line on standard output and status 1.
    private func notFound() -> ExitStatus {
        context.console.out(Self.notFound + "\n")
        return .signedOut
    }

    /// Standard input up to its end (docker writes the server address without a newline).
    private func readInput() -> String {
        var lines: [String] = []
        while let line = context.console.readLine(), lines.count < 64 { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}
