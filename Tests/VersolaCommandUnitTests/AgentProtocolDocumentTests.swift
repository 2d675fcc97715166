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

    /// The document's request and reply examples in the order they appear, as (kind, text).
    static func exchanges() throws -> [(kind: String, text: String)] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/agent-protocol.md")
        let lines = try String(contentsOf: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var found: [(kind: String, text: String)] = []
        var index = 0
        while index < lines.count {
            let kind = lines[index].dropFirst(3)
            if lines[index].hasPrefix("```"), kind == "agent-request" || kind == "agent-reply" {
                found.append((String(kind), String(lines[index + 1])))
                index += 2
            }
            index += 1
        }
        return found
    }

    @Test("Every result example decodes into the typed result of the request before it, and is written back the same")
    func typedResults() throws {
        var operation: AgentOperation?
        var answered: Set<AgentOperation> = []
        var errors = 0
        for (kind, text) in try Self.exchanges() {
            let line = Array(text.utf8)
            if kind == "agent-request" {
                operation = try #require(AgentRequest(line: line)).operation
                continue
            }
            switch try #require(AgentReply(line: line), "not a reply: \(text)") {
            case .success(let json):
                let asked = try #require(operation, "a result before any request: \(text)")
                let type = asked.resultType
                let decoded: (any AgentResultBody)? = type.init(json: json)
                let result = try #require(decoded, "not a \(type): \(text)")
                #expect(result.json == json)
                #expect(AgentReply.success(result.json).line == line + [UInt8(ascii: "\n")])
                answered.insert(asked)
            case .failure(let error):
                // One error body for every operation, read and written by one type.
                let body = try #require(AgentErrorBody(members: AgentErrorBody(error).members))
                #expect(body.error == error)
                errors += 1
            case .printed:
                Issue.record("a printout in a reply block: \(text)")
            }
        }
        // Every operation shows its result, but `watch`, whose lines are `status` results.
        #expect(answered == Set(AgentOperation.allCases).subtracting([.watch]))
        #expect(errors >= 2)
    }

    @Test("A result of another operation, or a printout, is a lost answer; an error is the error")
    func mismatchedResults() throws {
        let status = AgentReply.ok(AgentStatus(profile: "default", state: .authenticated))
        #expect(throws: AgentClient.lostAnswer) { try status.result(AgentHTTPResponse.self) }
        let read = try status.result(AgentStatus.self)
        #expect(read.signedIn)
        #expect(throws: AgentClient.lostAnswer) { try AgentReply.printed(AgentPrintout(bytes: [])).result(AgentStatus.self) }
        let expired = VersolaError.reauthenticate(.sessionExpired)
        #expect(throws: expired) { try AgentReply.failure(expired).result(AgentTokenResult.self) }
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
