import Versola
import VersolaJOSE

/// How every adapter answers a tool: the target table names the profile, and the profile's
/// session gives the token (the agent first, refreshed when needed, never a sign-in), handed
/// out only as a Bearer credential.
struct CredentialLookup {
    let context: CommandContext

    /// The target table of the caller's config directory.
    /// - Throws: a table that cannot be read (configuration).
    func table() throws(CommandFailure) -> TargetTable {
        do throws(VersolaError) { return try TargetTable.load(configHome: try context.directories().configHome.path) } catch {
            throw .versola(error)
        }
    }

    /// The row serving `address` for `tool`; nil when no row does (the tool is told "not mine").
    /// - Throws: a table that cannot be read (configuration).
    func target(_ tool: TargetTool, address: String) throws(CommandFailure) -> CredentialTarget? {
        try table().target(for: tool, address: address)
    }

    /// The token `target` is served with.
    /// - Parameter forceRefresh: refresh even while the held token is valid (a refused token).
    /// - Throws: the reason in the engine's categories: a missing session is `reauthenticate`,
    ///   a DPoP-bound profile or a token source this versola cannot use `configuration`.
    func token(for target: CredentialTarget, forceRefresh: Bool = false) async throws(CommandFailure) -> AgentTokenResult {
        let refusal = target.tool.bearerTool.dpopRefused(profile: target.profile)
        if let source = target.unusableSource {
            throw .versola(
                .configuration(
                    .invalidConfiguration(
                        "the target \(target.key) asks for a token source this versola does not know (\(source)); update versola")))
        }
        do throws(VersolaError) {
            guard try context.profileFiles().require(target.profile).dpop != .require else { throw refusal }
        } catch {
            throw .versola(error)
        }
        let arguments = AgentTokenArguments(forceRefresh: forceRefresh)
        let call: AgentCall = target.token == .id ? .idToken(arguments) : .token(arguments)
        let result = try await CommandRunner.call(AgentRequest(call, profile: target.profile), context)
        guard let token = AgentTokenResult(result, kind: target.token) else { throw .versola(AgentClient.lostAnswer) }
        guard token.kind == .id || token.tokenType == .bearer else { throw .versola(refusal) }
        return token
    }
}
