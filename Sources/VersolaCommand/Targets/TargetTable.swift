import Versola
import VersolaJOSE

/// The one table from a tool's target to the session that serves it:
/// `$XDG_CONFIG_HOME/versola/targets.json`, user-only and checked like the profiles (L3, L4),
/// written by `setup-docker`, `setup-pip` and `setup-cargo` and read by every adapter.
///
/// ```json
/// {"version":1,"targets":[{"tool":"docker","match":"registry.example.com","profile":"work","token":"access","source":"session","username":"oauth2"}]}
/// ```
public struct TargetTable: Sendable, Hashable {
    /// The rows, in the order they were added.
    public var targets: [CredentialTarget]

    /// A table of `targets`.
    public init(_ targets: [CredentialTarget] = []) {
        self.targets = targets
    }

    /// The file under `configHome`.
    static func path(configHome: String) -> String {
        ProfileFiles(configHome: configHome).applicationDirectory + "/targets.json"
    }

    /// The table saved under `configHome`; empty when there is none. Rows this versola cannot
    /// read are left out (and kept when the table is written again, see ``save(configHome:)``).
    public static func load(configHome: String) throws(VersolaError) -> TargetTable {
        TargetTable(try rows(configHome: configHome).compactMap(CredentialTarget.init(json:)))
    }

    private static func rows(configHome: String) throws(VersolaError) -> [JSONValue] {
        let files = ProfileFiles(configHome: configHome)
        return try files.readJSON(at: path(configHome: configHome), beside: true)?["targets"]?.array ?? []
    }

    /// Writes the table under `configHome`, keeping the rows of the file this versola could not read.
    public func save(configHome: String) throws(VersolaError) {
        let unread = try Self.rows(configHome: configHome).filter { CredentialTarget(json: $0) == nil }
        let value: JSONValue = ["version": 1, "targets": .array(targets.map(\.json) + unread)]
        try ProfileFiles(configHome: configHome).write(json: value, to: Self.path(configHome: configHome))
    }

    /// Adds `target`, replacing the row of the same tool and key (running a setup again for
    /// another profile moves the target to it).
    public mutating func put(_ target: CredentialTarget) {
        if let index = targets.firstIndex(where: { $0.tool == target.tool && $0.key == target.key }) {
            targets[index] = target
        } else {
            targets.append(target)
        }
    }

    /// The row that serves what `tool` asks for (`address`: docker's server address, a URL),
    /// the longest URL prefix when several do; nil when none does.
    public func target(for tool: TargetTool, address: String) -> CredentialTarget? {
        guard let asked = TargetKey.asked(address, tool: tool) else { return nil }
        return targets.filter { $0.tool == tool && $0.key.covers(asked) }.max { $0.key.specificity < $1.key.specificity }
    }

    /// The rows of `tool`.
    public func targets(of tool: TargetTool) -> [CredentialTarget] { targets.filter { $0.tool == tool } }
}
