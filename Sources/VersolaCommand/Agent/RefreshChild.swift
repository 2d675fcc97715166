import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// Renews a profile's access token for the agent in a short-lived process of the engine, so
/// that libcurl, its libraries and the refresh code are never loaded into the long-running
/// agent for token work (issue 30: the agent's memory).
///
/// The child is `versola --profile NAME --no-agent --json token --format json`, with the
/// location's `XDG_CONFIG_HOME` and `XDG_STATE_HOME` and the agent's environment otherwise
/// (nothing secret on its command line). It restores the session from the store and refreshes
/// through the same engine code under the store's cross-process lock with the in-flight note
/// (R6, P7, T2), writes the record, and prints the token on its standard output (a pipe to the
/// agent). A failure arrives as its `--json` error on standard error and is read back into the
/// same ``VersolaError`` an in-process refresh would have thrown.
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

    /// Runs the refresh for `location` and returns the token it printed.
    /// - Throws: the refresh's error, or ``lost(_:)`` when its answer cannot be read.
    func refresh(_ location: SessionHost.Location, forced: Bool) async throws(VersolaError) -> AgentTokenResult {
        let arguments =
            ["--profile", location.profile, "--no-agent", "--json", "token", "--format", "json"]
            + (forced ? ["--force-refresh"] : [])
        guard
            let outcome = await ChildProcess.run(
                URL(fileURLWithPath: executable), arguments: arguments, environment: childEnvironment(location))
        else { throw Self.lost("it could not be started") }
        return try Self.result(of: outcome)
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

    /// The token a finished child printed, or the error it reported.
    static func result(of outcome: ChildProcess.Outcome) throws(VersolaError) -> AgentTokenResult {
        if outcome.signalled { throw lost("ended by signal \(outcome.status)") }
        guard outcome.status == ExitStatus.success.rawValue else { throw error(outcome) }
        guard let printed = try? JSONValue(parsing: String(decoding: outcome.output, as: UTF8.self)),
            case .object(var members) = printed
        else { throw lost("its answer did not read") }
        // `--format json` writes the expiry in RFC 3339; the result carries seconds.
        if let expiry = members["expiresAt"], !expiry.isNull {
            guard let seconds = expiry.string.flatMap(AccessTokenExpiry.seconds(rfc3339:)) else {
                throw lost("its answer did not read")
            }
            members["expiresAt"] = .integer(seconds)
        }
        guard let result = AgentTokenResult(.object(members), kind: .access) else { throw lost("its answer did not read") }
        return result
    }

    /// The error a failed child reported with `--json`, read back with ``VersolaErrorCoding``;
    /// its exit status must be the one that error's category gives.
    private static func error(_ outcome: ChildProcess.Outcome) -> VersolaError {
        let text = String(decoding: outcome.errorOutput, as: UTF8.self)
        // The E13 object is the last line the child wrote.
        let line = text.split(separator: "\n").last.map(String.init) ?? ""
        guard let fields = (try? JSONValue(parsing: line))?["error"]?.object, let error = VersolaErrorCoding.decode(fields),
            ExitStatus(error).rawValue == outcome.status
        else { return lost("exit status \(outcome.status)") }
        return error
    }
}
