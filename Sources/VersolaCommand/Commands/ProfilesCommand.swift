import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// `versola profiles`: every saved profile with its issuer and the state of its session.
struct ProfilesCommand {
    let context: CommandContext

    /// One line of the list.
    private struct Row {
        var profile: String
        var issuer: String?
        var state: String

        var json: JSONValue {
            ["profile": .string(profile), "issuer": issuer.map { .string($0) } ?? .null, "state": .string(state)]
        }
    }

    func run() async throws(CommandFailure) {
        let files: ProfileFiles
        do throws(VersolaError) { files = try context.profileFiles() } catch { throw .versola(error) }
        var rows: [Row] = []
        for name in Self.names(in: files.directory) {
            // A profile that cannot be read is listed with the reason, not skipped.
            let settings: ProfileSettings?
            do throws(VersolaError) { settings = try files.load(name) } catch {
                rows.append(Row(profile: name, issuer: nil, state: "unreadable"))
                continue
            }
            guard let settings else { continue }
            var state = "unknown"
            // Asked of a running agent, else read here from the store; none is started to list.
            if let status = try? await CommandRunner.call(
                AgentRequest(.status, profile: name), context, startAgent: false, as: AgentStatus.self)
            {
                state = status.state.rawValue
            }
            rows.append(Row(profile: name, issuer: settings.issuer, state: state))
        }
        if context.invocation.global.json {
            context.console.out(JSONValue.array(rows.map(\.json)).serialized() + "\n")
            return
        }
        guard !rows.isEmpty else {
            context.console.out("no profiles yet: versola login --issuer URL --client-id ID\n")
            return
        }
        let width = (rows.map(\.profile.count).max() ?? 0) + 2
        for row in rows {
            let line = row.profile + String(repeating: " ", count: max(1, width - row.profile.count))
                + (row.issuer ?? "-") + "  " + row.state
            context.console.out(TerminalText.visible(line) + "\n")
        }
    }

    /// The profile names in `directory`, sorted (pending settings beside them are not profiles).
    static func names(in directory: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.map { String($0.dropLast(5)) }.sorted()
    }
}
