import Versola
import VersolaHTTP
import VersolaJOSE

/// One answer of the agent (docs/agent-protocol.md): a JSON line `{"v":1,"ok":RESULT}` or
/// `{"v":1,"error":{"category":…,"cause":…,…}}` (E13), or, to a `token` or `id-token` request
/// that asks for `print`, the bytes the command prints, framed (``AgentPrintout``).
public enum AgentReply: Sendable, Hashable {
    /// The operation's result: the `ok` member of the operation's ``AgentOperation/resultType``
    /// (``ok(_:)`` writes it, ``result(_:)`` reads it).
    case success(JSONValue)
    /// The operation's failure, sent as its ``AgentErrorBody``.
    case failure(VersolaError)
    /// What the command prints on standard output, rendered by the agent.
    case printed(AgentPrintout)

    /// What is sent: the line and its newline, or the frame of a printout.
    public var line: [UInt8] {
        let value: JSONValue
        switch self {
        case .success(let result): value = ["v": .integer(AgentProtocol.version), "ok": result]
        case .failure(let error):
            value = ["v": .integer(AgentProtocol.version), "error": .object(AgentErrorBody(error).members)]
        case .printed(let printout): return printout.frame
        }
        return value.serializedBytes() + [UInt8(ascii: "\n")]
    }

    /// Parses a JSON reply line (without its newline); nil when it is not one, or is of
    /// another protocol version. A line without `v` is of this version.
    public init?(line: [UInt8]) {
        guard let value = try? JSONValue(parsing: line), value.object != nil,
            (value["v"].map { $0.int64 ?? -1 } ?? AgentProtocol.version) == AgentProtocol.version
        else { return nil }
        if let result = value["ok"] {
            self = .success(result)
        } else if let fields = value["error"]?.object, let body = AgentErrorBody(members: fields) {
            self = .failure(body.error)
        } else {
            return nil
        }
    }

    /// Reads one answer from `connection`: a printout frame or a JSON line; nil when none
    /// arrived whole (the stream ended, or it is not an answer).
    static func read(from connection: Int32, pending: inout [UInt8]) -> AgentReply? {
        guard let line = UnixSocket.readLine(from: connection, pending: &pending) else { return nil }
        if let length = AgentPrintout.length(header: line) {
            return UnixSocket.readBytes(length, from: connection, pending: &pending).map { .printed(AgentPrintout(bytes: $0)) }
        }
        return AgentReply(line: line)
    }
}

/// The bytes a successful command prints on standard output, rendered by the agent: sent as
/// the line `print LENGTH` (decimal ASCII) and exactly LENGTH bytes, so that a caller (the C
/// front) copies them out without reading any JSON, and exits with status 0. A failure is
/// never a printout: it is an `error` line, whose category gives the exit status.
public struct AgentPrintout: Sendable, Hashable {
    /// What goes to standard output, as it is.
    public var bytes: [UInt8]

    /// Creates a printout.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The frame sent.
    var frame: [UInt8] { Array("print \(bytes.count)\n".utf8) + bytes }

    /// The length a frame's first line announces (`line` without its newline); nil when it
    /// is not such a line: `print`, one space, 1 to 9 digits, at most ``UnixSocket/maximumLineLength``.
    static func length(header line: [UInt8]) -> Int? {
        let prefix = Array("print ".utf8)
        guard line.count > prefix.count, line.starts(with: prefix) else { return nil }
        let digits = line[prefix.count...]
        guard digits.count <= 9, digits.allSatisfy({ (48...57).contains($0) }),
            let length = Int(String(decoding: digits, as: UTF8.self)), length <= UnixSocket.maximumLineLength
        else { return nil }
        return length
    }
}
