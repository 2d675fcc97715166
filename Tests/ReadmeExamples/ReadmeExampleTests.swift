import Foundation
import Testing

/// README.md's Swift examples are the ones `Readme/ReadmeExampleN.swift` compile, each in a
/// file of its own with exactly the imports the README shows (a block that shows none continues
/// the one before and has its imports): a type another file's import brings cannot make an
/// example compile. Block N is the body of `readmeExampleN`. A `// Package.swift` block is a
/// manifest fragment: scripts/test.sh resolves it as written.
@Suite struct ReadmeExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// One ```swift block: its import lines and the rest (without leading blank lines).
    struct Block: Equatable {
        var imports: [String]
        var body: [String]
    }

    /// The ```swift blocks of `text`.
    static func swiftBlocks(of text: String) -> [Block] {
        var blocks: [Block] = []
        var current: Block?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if current == nil {
                if line == "```swift" { current = Block(imports: [], body: []) }
            } else if line == "```" {
                if var block = current {
                    while block.body.first == "" { block.body.removeFirst() }
                    blocks.append(block)
                }
                current = nil
            } else if line.hasPrefix("import ") {
                current?.imports.append(line)
            } else {
                current?.body.append(line)
            }
        }
        return blocks
    }

    /// A compiled example file: its import lines and the body of its `readmeExample` function, unindented.
    static func compiled(_ text: String) -> Block {
        var block = Block(imports: [], body: [])
        var inBody = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("import ") {
                block.imports.append(line)
            } else if line.hasPrefix("func readmeExample") {
                inBody = true
            } else if line == "}" {
                inBody = false
            } else if inBody {
                block.body.append(line.hasPrefix("    ") ? String(line.dropFirst(4)) : line)
            }
        }
        return block
    }

    @Test func everyReadmeExampleIsCompiledWithTheImportsItShows() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = Self.swiftBlocks(of: readme)
        #expect(blocks.count > 3, "README.md has Swift examples")
        let folder = Self.root.appendingPathComponent("Tests/ReadmeExamples/Readme")
        var expectedFiles: Set<String> = []
        var imports: [String] = []
        for (index, block) in blocks.enumerated() {
            if block.body.first?.hasPrefix("// Package.swift") == true { continue }
            if !block.imports.isEmpty { imports = block.imports }
            let name = "ReadmeExample\(index + 1).swift"
            expectedFiles.insert(name)
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let file = Self.compiled(text)
            #expect(file.imports == imports, "\(name) imports exactly what README block \(index + 1) shows")
            #expect(file.body == block.body, "README block \(index + 1) differs from \(name)")
        }
        let present = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        #expect(present == expectedFiles, "one file per README block, none left over")
    }

    @Test func aBlockMissingAnImportIsCaught() {
        let readme = "```swift\nimport Versola\n\nlet u = URL(string: \"x\")\n```\n"
        let compiled = Self.compiled("import Foundation\nimport Versola\n\nfunc readmeExample1() {\n    let u = URL(string: \"x\")\n}\n")
        let block = Self.swiftBlocks(of: readme)[0]
        #expect(block.body == compiled.body)
        #expect(block.imports != compiled.imports)
    }
}
