import Foundation
import Testing
import Versola
import VersolaJOSE

@testable import VersolaCommand

/// docs/agent-protocol.md is what other programs read to use the agent: every request, reply
/// and printout it shows must be what the Swift types read and write, byte for byte.
@Suite("The agent protocol document matches the code")
struct AgentProtocolDocumentTests {
    /// The document's fenced blocks of `kind` (`agent-request`, `agent-reply`, `agent-printout`).
    static func examples(_ kind: String) throws -> [String] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/agent-protocol.md")
        let text = try String(contentsOf: path, encoding: .utf8)
        var blocks: [String] = []
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let block = current {
                if line == "```" {
                    blocks.append(block)
                    current = nil
                } else {
                    current = block + line + "\n"
                }
            } else if line == "```" + kind {
                current = ""
            }
        }
        return blocks
    }

    @Test("Every request example reads as a request and is written back the same")
    func requests() throws {
        let examples = try Self.examples("agent-request")
        #expect(examples.count >= 8)
        var operations: Set<AgentOperation> = []
        for example in examples {
            let line = Array(example.utf8.dropLast())
            guard case .success(let request) = AgentRequest.parse(line) else {
                Issue.record("not a request: \(example)")
                continue
            }
            operations.insert(request.operation)
            #expect(String(decoding: request.line, as: UTF8.self) == example)
        }
        #expect(operations.isSuperset(of: [.token, .idToken, .status, .request, .logout, .adopt, .ping]))
    }

    @Test("Every reply example reads as a reply and is written back the same")
    func replies() throws {
        let examples = try Self.examples("agent-reply")
        #expect(examples.count >= 6)
        var failures = 0
        for example in examples {
            guard let reply = AgentReply(line: Array(example.utf8.dropLast())) else {
                Issue.record("not a reply: \(example)")
                continue
            }
            if case .failure = reply { failures += 1 }
            #expect(String(decoding: reply.line, as: UTF8.self) == example)
        }
        #expect(failures >= 2)
    }

    @Test("The printout example is a frame, and what versola token --format raw prints for the token example")
    func printout() throws {
        let examples = try Self.examples("agent-printout")
        try #require(examples.count == 1)
        let frame = Array(examples[0].utf8)
        let newline = try #require(frame.firstIndex(of: UInt8(ascii: "\n")))
        let length = try #require(AgentPrintout.length(header: Array(frame[..<newline])))
        let bytes = Array(frame[(newline + 1)...])
        #expect(length == bytes.count)
        #expect(AgentReply.printed(AgentPrintout(bytes: bytes)).line == frame)
        // The first token reply of the document, printed raw.
        let reply = try #require(Self.examples("agent-reply").first.flatMap { AgentReply(line: Array($0.utf8.dropLast())) })
        guard case .success(let result) = reply, let token = AgentTokenResult(result, kind: .access) else {
            Issue.record("the first reply example is not a token")
            return
        }
        #expect(AgentTokenPrint(format: .raw).reply(for: token, profile: "default") == .printed(AgentPrintout(bytes: bytes)))
    }
}
