import Versola
import VersolaJOSE

/// `versola cargo-credential --cargo-plugin`: cargo's credential-provider protocol, version 1.
/// It says hello (`{"v":[1]}`), then answers each request line until cargo closes its input:
/// `get` for a registry of the target table with the session's token and its expiry (cargo
/// caches it until then), `url-not-supported` for any other registry (cargo asks its next
/// provider), `operation-not-supported` for login and logout (the session is the credential).
struct CargoCredentialCommand {
    let context: CommandContext

    func run(_ options: CargoCredentialOptions) async throws(CommandFailure) {
        guard options.cargoPlugin else {
            throw .usage(
                UsageError(
                    "cargo-credential is run by cargo (--cargo-plugin); set it up with versola setup-cargo", command: .cargoCredential))
        }
        context.console.out(#"{"v":[1]}"# + "\n")
        while let line = context.console.readLine() {
            guard !line.trimmingBlanks.isEmpty else { continue }
            context.console.out(try await answer(line).serialized() + "\n")
        }
    }

    /// The answer to one request line.
    func answer(_ line: String) async throws(CommandFailure) -> JSONValue {
        guard let request = try? JSONValue(parsing: Array(line.utf8)), request["v"]?.int64 == 1,
            let index = request["registry"]?["index-url"]?.string
        else { return Self.failure(message: "versola: a request of cargo's credential protocol version 1 was expected") }
        let lookup = CredentialLookup(context: context)
        guard request["kind"]?.string == "get" else {
            return Self.failure(kind: try lookup.target(.cargo, address: index) == nil ? "url-not-supported" : "operation-not-supported")
        }
        let reply = try await lookup.ask(.cargo, address: index, print: false)
        do throws(VersolaError) {
            guard case .served(let target, let token) = try CredentialLookup.read(reply) else {
                return Self.failure(kind: "url-not-supported")
            }
            return Self.success(target: target, token: token)
        } catch {
            // Said for the target's profile, whose sign-in line fixes it.
            return Self.failure(message: String(lookup.report(error, .cargo, address: index).dropLast()))
        }
    }

    /// `{"Ok":{"kind":"get","token":…,"cache":"expires","expiration":…,"operation_independent":true}}`
    /// (`cache` is `session` when the expiry is unknown).
    static func success(target: CredentialTarget, token: AgentTokenResult) -> JSONValue {
        let value = target.authorization == .token ? token.value : "Bearer " + token.value
        var members: [(String, JSONValue)] = [("kind", "get"), ("token", .string(value))]
        if let expiresAt = token.expiresAt {
            members += [("cache", "expires"), ("expiration", .integer(expiresAt))]
        } else {
            members.append(("cache", "session"))
        }
        members.append(("operation_independent", true))
        return ["Ok": .object(JSONObject(members))]
    }

    /// `{"Err":{"kind":…}}`, or with a message the `other` kind cargo shows.
    static func failure(kind: String = "other", message: String? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [("kind", .string(kind))]
        if let message { members += [("message", .string(message)), ("caused-by", .array([]))] }
        return ["Err": .object(JSONObject(members))]
    }
}
