import Versola
import VersolaJOSE

/// How every adapter asks for a tool's credential: one `credential` request to the agent (or
/// to a host of this process), which resolves the target and gives the session's token
/// (``CredentialResolution``), refreshed when needed, never a sign-in nor a prompt.
struct CredentialLookup {
    let context: CommandContext

    /// What the answer says.
    enum Answer {
        /// No target covers the address: the tool is told "not mine".
        case notServed
        /// What the adapter prints, rendered by the agent.
        case printed(AgentPrintout)
        /// The target and its token.
        case served(CredentialTarget, AgentTokenResult)
    }

    /// Asks for `tool`'s credential for `address`.
    /// - Parameter print: ask for what the adapter prints (docker, Python).
    func ask(_ tool: TargetTool, address: String, print: Bool) async throws(CommandFailure) -> AgentReply {
        let arguments = AgentCredentialArguments(tool: tool, address: address, print: print)
        return try await CommandRunner.ask(AgentRequest(.credential(arguments), profile: context.profile), context)
    }

    /// Reads `reply`, the answer to ``ask(_:address:print:)`` (or one the front handed over).
    /// - Throws: the failure it carries, or a lost answer.
    static func read(_ reply: AgentReply) throws(VersolaError) -> Answer {
        switch reply {
        case .printed(let printout): return .printed(printout)
        case .failure(let error): throw error
        case .success(let value):
            guard let result = AgentCredentialResult(json: value) else { throw AgentClient.lostAnswer }
            return result.served.map { .served($0.target, $0.token) } ?? .notServed
        }
    }

    /// The target table of the caller's config directory.
    /// - Throws: a table that cannot be read (configuration).
    func table() throws(CommandFailure) -> TargetTable {
        do throws(VersolaError) { return try TargetTable.load(configHome: try context.directories().configHome.path) } catch {
            throw .versola(error)
        }
    }

    /// The row serving `address` for `tool`; nil when no row does.
    func target(_ tool: TargetTool, address: String) throws(CommandFailure) -> CredentialTarget? {
        try table().target(for: tool, address: address)
    }

    /// The profile whose sign-in line a failure for `address` names: the target's.
    func profile(for tool: TargetTool, address: String) -> String {
        ((try? target(tool, address: address)) ?? nil)?.profile ?? context.profile
    }

    /// The sentence (or E13 object) for `error` for `address`, naming the target's profile.
    func report(_ error: VersolaError, _ tool: TargetTool, address: String) -> String {
        ErrorReport.render(.versola(error), json: context.invocation.global.json, profile: profile(for: tool, address: address))
    }
}
