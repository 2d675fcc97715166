import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// `versola profiles`: every saved profile with its issuer and the state of its session.
struct ProfilesCommand {
    let context: CommandContext

    func run() async throws(CommandFailure) {
        let files: ProfileFiles
        do throws(VersolaError) { files = try context.profileFiles() } catch { throw .versola(error) }
        var rows: [JSONValue] = []
        for name in Self.names(in: files.directory) {
            // A profile that cannot be read is listed with the reason, not skipped.
            let settings: ProfileSettings?
            do throws(VersolaError) { settings = try files.load(name) } catch {
                rows.append(["profile": .string(name), "issuer": .null, "state": "unreadable"])
                continue
            }
            guard let settings else { continue }
            var state = "unknown"
            // Asked of a running agent, else read here from the store; none is started to list.
            if let status = try? await CommandRunner.call(AgentRequest(.status, profile: name), context, startAgent: false) {
                state = status["state"]?.string ?? state
            }
            rows.append(["profile": .string(name), "issuer": .string(settings.issuer), "state": .string(state)])
        }
        if context.invocation.global.json {
            context.console.out(JSONValue.array(rows).serialized() + "\n")
            return
        }
        guard !rows.isEmpty else {
            context.console.out("no profiles yet: versola login --issuer URL --client-id ID\n")
            return
        }
        let width = (rows.compactMap { $0["profile"]?.string?.count }.max() ?? 0) + 2
        for row in rows {
            let name = row["profile"]?.string ?? "?"
            let line = name + String(repeating: " ", count: max(1, width - name.count))
                + (row["issuer"]?.string ?? "-") + "  " + (row["state"]?.string ?? "?")
            context.console.out(TerminalText.visible(line) + "\n")
        }
    }

    /// The profile names in `directory`, sorted (pending settings beside them are not profiles).
    static func names(in directory: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.map { String($0.dropLast(5)) }.sorted()
    }
}
