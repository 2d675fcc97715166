import Foundation
import Testing

/// README.md's Swift examples are the ones `Examples.swift` compiles: each ```swift block of the
/// README (without its import lines) appears there, line for line, as the body of a function.
@Suite struct ReadmeExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The ```swift blocks of `text`, each as its lines without `import` lines and leading blank lines.
    static func swiftBlocks(of text: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if current == nil {
                if line == "```swift" { current = [] }
            } else if line == "```" {
                var body = current ?? []
                while body.first == "" { body.removeFirst() }
                blocks.append(body)
                current = nil
            } else if !line.hasPrefix("import ") {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The bodies of the `readmeExampleN` functions of Examples.swift, unindented.
    static func compiledBodies(of text: String) -> [[String]] {
        var bodies: [[String]] = []
        var current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("func readmeExample") {
                current = []
            } else if line == "}", let body = current {
                bodies.append(body)
                current = nil
            } else if current != nil {
                current?.append(line.hasPrefix("    ") ? String(line.dropFirst(4)) : line)
            }
        }
        return bodies
    }

    @Test func everyReadmeExampleIsCompiledAsWritten() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let examples = try String(
            contentsOf: Self.root.appendingPathComponent("Tests/ReadmeExamples/Examples.swift"), encoding: .utf8)
        let blocks = Self.swiftBlocks(of: readme)
        let compiled = Self.compiledBodies(of: examples)
        #expect(!blocks.isEmpty, "README.md has Swift examples")
        #expect(blocks.count == compiled.count, "one compiled function per README block")
        for (index, (block, body)) in zip(blocks, compiled).enumerated() {
            #expect(block == body, "README block \(index + 1) differs from readmeExample\(index + 1)")
        }
    }
}
