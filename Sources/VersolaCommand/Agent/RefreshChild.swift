import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// Renews a profile's access token for the agent in a short-lived process of the engine, so
/// that libcurl, its libraries and the refresh code are never loaded into the long-running
/// agent for token work (issue 30: the agent's memory).
///
/// The child is `versola agent --stdio`, with the location's `XDG_CONFIG_HOME` and
/// `XDG_STATE_HOME` and the agent's environment otherwise (nothing secret on its command line).
/// It speaks the agent protocol (docs/agent-protocol.md): it reads one `token` request on its
/// standard input, answers it as an agent does (restoring the session from the store and
/// refreshing through the same engine code under the store's cross-process lock with the
/// in-flight note, R6, P7, T2, and writing the record; a record the disk refuses is spilled,
/// P10), and writes one typed reply on its standard output (a pipe to the agent): the token
/// result, or the error an in-process refresh would have thrown. When the disk refused the
/// renewed record, the reply also carries it, sealed as the record file holds it, in
/// `sealedRecord` (base64url): the agent outlives the child, so it holds the record, serves
/// from it and writes it once the disk has room (P10 across the process boundary).
struct RefreshChild: Sendable {
    /// The engine to run (the agent's own executable).
    let executable: String
    /// The agent's environment.
    let environment: [String: String]

    /// A refresh process that cannot tell what became of the refresh (killed by a signal, an
    /// answer that does not read): the token may have been renewed, so nothing is retried.
    static func lost(_ what: String) -> VersolaError {
        .recoverable(
            .network(
                NetworkFailure(
                    kind: .failedAfterSending, requestBytesWritten: true, origin: "the versola refresh process (\(what))")))
    }

    /// What a refresh process answered: the token or the error, and the renewed record it
    /// could not store, sealed (P10).
    struct Answer: Sendable {
        var result: Result<AgentTokenResult, VersolaError>
        var sealedRecord: [UInt8]?
    }

    /// The reply member carrying the sealed record.
    static let sealedRecordMember = "sealedRecord"

    /// Runs the refresh for `location` and returns what it answered: the token, or the
    /// refresh's error, or ``lost(_:)`` when its answer cannot be read.
    func refresh(_ location: SessionHost.Location, forced: Bool) async -> Answer {
        let request = AgentRequest(
            .token(AgentTokenArguments(forceRefresh: forced)), profile: location.profile, directories: location.directories)
        guard
            let outcome = await ChildProcess.run(
                URL(fileURLWithPath: executable), arguments: ["agent", "--stdio"], input: request.line,
                environment: childEnvironment(location))
        else { return Answer(result: .failure(Self.lost("it could not be started"))) }
        return Self.answer(of: outcome)
    }

    /// The child's environment: the agent's, with the caller's directories for the profile.
    /// A passphrase descriptor the agent inherited is not the child's to read.
    func childEnvironment(_ location: SessionHost.Location) -> [String: String] {
        var child = environment
        child["XDG_CONFIG_HOME"] = location.directories.configHome.path
        child["XDG_STATE_HOME"] = location.directories.stateHome.path
        for name in ["VERSOLA_PASSPHRASE_FD", "VERSOLA_PROFILE", "VERSOLA_NO_AGENT"] { child[name] = nil }
        return child
    }

    /// What a finished child answered: the token or the error, and a sealed record. A child
    /// killed, failed or answering what does not read may have renewed the token: ``lost(_:)``.
    static func answer(of outcome: ChildProcess.Outcome) -> Answer {
        if outcome.signalled { return Answer(result: .failure(lost("ended by signal \(outcome.status)"))) }
        guard outcome.status == ExitStatus.success.rawValue else {
            return Answer(result: .failure(lost("exit status \(outcome.status)")))
        }
        let sealed = (try? JSONValue(parsing: outcome.output))?[sealedRecordMember]?.string.flatMap { try? Base64URL.decode($0) }
        switch AgentReply(line: outcome.output) {
        case .success(let json)?:
            guard let result = AgentTokenResult(json, kind: .access) else {
                return Answer(result: .failure(lost("its answer did not read")), sealedRecord: sealed)
            }
            return Answer(result: .success(result), sealedRecord: sealed)
        case .failure(let error)?: return Answer(result: .failure(error), sealedRecord: sealed)
        case .printed?, nil: return Answer(result: .failure(lost("its answer did not read")), sealedRecord: sealed)
        }
    }

    /// The reply line, with `sealed` (a renewed record the disk refused) as `sealedRecord`.
    static func line(_ reply: AgentReply, handingOver sealed: [UInt8]?) -> [UInt8] {
        guard let sealed, case .object(var members)? = try? JSONValue(parsing: reply.line.dropLast()) else { return reply.line }
        members[sealedRecordMember] = .string(Base64URL.encode(sealed))
        return JSONValue.object(members).serializedBytes() + [UInt8(ascii: "\n")]
    }

    /// `versola agent --stdio`: answers the one request on standard input as the agent would
    /// (no refresh process of its own: it is one), on standard output. A request that does not
    /// read is answered with the agent's error for it.
    static func answerOne(_ context: CommandContext) -> ExitStatus {
        let input = FileHandle.standardInput.readData(ofLength: UnixSocket.maximumLineLength + 1)
        var line = Array(input)
        if line.last == UInt8(ascii: "\n") { line.removeLast() }
        let answer: [UInt8]
        switch AgentRequest.parse(line) {
        case .failure(let refusal): answer = AgentReply.failure(AgentRequest.error(for: refusal)).line
        case .success(let request):
            let host = SessionHost(environment: context.environment)
            answer = SyncBridge.wait {
                let reply = await host.handle(request)
                return Self.line(reply, handingOver: await host.unsavedSealedRecord(for: request))
            }
        }
        context.console.out(String(decoding: answer, as: UTF8.self))
        return .success
    }
}
