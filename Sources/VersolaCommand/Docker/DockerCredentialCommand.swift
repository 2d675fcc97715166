import Versola
import VersolaJOSE

/// `docker-credential-versola get|store|erase|list`: the docker credential helper protocol
/// (docker, skopeo, podman, buildah). Standard output carries only the protocol's answers.
///
/// `get` answers a registry of the target table with the session's token; for any other
/// registry, and for one whose profile cannot give a token now, it exits 1 with docker's
/// "not found" line, so the client goes on without credentials (the reason goes to stderr).
/// A warm `get` is answered by the front and the agent alone (``finish(_:address:)``).
struct DockerCredentialCommand {
    let context: CommandContext

    /// The line every docker credential helper answers for a credential it does not have.
    static let notFound = "credentials not found in native keychain"

    func run(_ operation: DockerCredentialOperation) async throws(CommandFailure) -> ExitStatus {
        let lookup = CredentialLookup(context: context)
        switch operation {
        case .list:
            let served = try lookup.table().targets(of: .docker).compactMap { target -> (String, JSONValue)? in
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
            return finish(try await lookup.ask(.docker, address: address, print: true), address: address)
        }
    }

    /// Prints the answer to `get` for `address`: the credential, or docker's "not found" (with
    /// the reason on standard error when the registry is served).
    func finish(_ reply: AgentReply, address: String) -> ExitStatus {
        do throws(VersolaError) {
            switch try CredentialLookup.read(reply) {
            case .notServed: return notFound()
            case .printed(let printout): context.console.out(String(decoding: printout.bytes, as: UTF8.self))
            case .served(let target, let token): context.console.out(Self.answer(address: address, target: target, token: token))
            }
            return .success
        } catch {
            context.console.err(CredentialLookup(context: context).report(error, .docker, address: address))
            return notFound()
        }
    }

    /// `{"ServerURL":…,"Username":…,"Secret":…}` and a newline.
    static func answer(address: String, target: CredentialTarget, token: AgentTokenResult) -> String {
        let answer: JSONValue = [
            "ServerURL": .string(address), "Username": .string(target.username ?? ""), "Secret": .string(token.value),
        ]
        return answer.serialized() + "\n"
    }

    /// Docker's "not found": the line on standard output and status 1.
    private func notFound() -> ExitStatus {
        context.console.out(Self.notFound + "\n")
        return .signedOut
    }

    /// Standard input up to its end (docker writes the server address without a newline).
    func readInput() -> String {
        var lines: [String] = []
        while lines.count < 64, let line = context.console.readLine() { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}
