import VersolaJOSE

/// The arguments of the agent's `credential` request: a tool's target (docker's server
/// address, a URL), answered from the target table of the caller's config directory with the
/// session of the profile it names (docs/agent-protocol.md, "credential").
///
/// `{"tool":"docker","address":"127.0.0.1:5000","print":true}`
public struct AgentCredentialArguments: Sendable, Hashable {
    /// The tool asking.
    public var tool: TargetTool
    /// What it asks about, as it said it.
    public var address: String
    /// Answer with the bytes the tool's adapter prints (docker's `get` answer) rather than the result.
    public var print: Bool

    /// Creates arguments.
    public init(tool: TargetTool, address: String, print: Bool = false) {
        self.tool = tool
        self.address = address
        self.print = print
    }

    /// The `args` member.
    var object: JSONObject {
        ["tool": .string(tool.rawValue), "address": .string(address), "print": .bool(print)]
    }

    /// Reads the `args` member; nil without a known tool and an address.
    init?(_ object: JSONObject) {
        guard let tool = object["tool"]?.string.flatMap(TargetTool.init(rawValue:)), let address = object["address"]?.string
        else { return nil }
        self.init(tool: tool, address: address, print: object["print"]?.bool ?? false)
    }
}
