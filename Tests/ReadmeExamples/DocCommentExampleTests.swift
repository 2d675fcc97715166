import Foundation
import Testing

/// The Swift examples in the documentation of `import Versola` are the ones
/// `DocCommentExamples.swift` compiles. An example is a ```swift block of a `///` comment on a
/// public declaration (of `Sources/Versola`, or of a `Sources/VersolaHTTP` file that declares
/// or extends a type `Versola` re-exports with a typealias), or of an article of the DocC
/// catalogue `Sources/Versola/Versola.docc`. Each must appear there, line for line, as the body
/// of a `docExample…` function; a compiled body that no documentation shows any more fails too.
@Suite struct DocCommentExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The files that compile the examples (the doc comments' and the articles'), as messages name them.
    static let compiledPath = "Tests/ReadmeExamples/DocCommentExamples*.swift"

    /// One example as documented: where it starts (the fence line), what it documents, its lines.
    struct Example: Equatable, CustomStringConvertible {
        var file: String
        var line: Int
        var symbol: String
        var lines: [String]

        var description: String { "\(file):\(line) (\(symbol))" }
    }

    // MARK: Finding the examples

    /// The ```swift blocks of the `///` comments of a Swift source file that document public API.
    static func docCommentExamples(in text: String, file: String) -> [Example] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var examples: [Example] = []
        var index = 0
        while index < lines.count {
            guard let fence = docText(lines[index]), fence.trimmingCharacters(in: .whitespaces) == "```swift" else {
                index += 1
                continue
            }
            let start = index
            var body: [String] = []
            index += 1
            while index < lines.count, let text = docText(lines[index]),
                text.trimmingCharacters(in: .whitespaces) != "```"
            {
                body.append(text)
                index += 1
            }
            // The declaration: the first line after the comment that is not an attribute.
            var declaration = index + 1
            while declaration < lines.count, docText(lines[declaration]) != nil || isAttribute(lines[declaration]) {
                declaration += 1
            }
            if declaration < lines.count, let symbol = publicSymbol(declaredAt: declaration, in: lines) {
                examples.append(Example(file: file, line: start + 1, symbol: symbol, lines: body))
            }
            index += 1
        }
        return examples
    }

    /// The ```swift blocks of a DocC article, without `import` lines and leading blank lines.
    static func articleExamples(in text: String, file: String) -> [Example] {
        var examples: [Example] = []
        var current: (line: Int, lines: [String])?
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            if current == nil {
                if line.trimmingCharacters(in: .whitespaces) == "```swift" { current = (offset + 1, []) }
            } else if line.trimmingCharacters(in: .whitespaces) == "```", let block = current {
                var body = block.lines
                while body.first == "" { body.removeFirst() }
                let title = file.split(separator: "/").last.map(String.init) ?? file
                examples.append(Example(file: file, line: block.line, symbol: "article \(title)", lines: body))
                current = nil
            } else if !line.hasPrefix("import ") {
                current?.lines.append(line)
            }
        }
        return examples
    }

    /// The text of a `///` line after the slashes and one space, or nil for any other line.
    static func docText(_ line: String) -> String? {
        let trimmed = line.drop { $0 == " " }
        guard trimmed.hasPrefix("///") else { return nil }
        let text = trimmed.dropFirst(3)
        return String(text.hasPrefix(" ") ? text.dropFirst() : text)
    }

    static func isAttribute(_ line: String) -> Bool {
        line.trimmingCharacters(in: .whitespaces).hasPrefix("@")
    }

    static let declarationKeywords: Set<String> = [
        "func", "init", "subscript", "var", "let", "case", "struct", "class", "enum", "actor", "protocol",
        "typealias", "extension", "associatedtype",
    ]
    static let hidingModifiers: Set<String> = ["private", "fileprivate", "internal", "package"]

    /// The name of the declaration on line `index` when it is public, qualified with the names
    /// of the types around it (`Session.loginWithDevice`); nil when it is not public.
    ///
    /// Public means `public` or `open` among its modifiers, or none of them on an enum case or
    /// a requirement of a public protocol (which take the access of their type).
    static func publicSymbol(declaredAt index: Int, in lines: [String]) -> String? {
        guard let (modifiers, keyword, name) = parseDeclaration(lines[index]) else { return nil }
        let enclosing = enclosingDeclarations(of: index, in: lines)
        if !modifiers.isDisjoint(with: hidingModifiers) { return nil }
        if modifiers.isDisjoint(with: ["public", "open"]) {
            guard let parent = enclosing.last else { return nil }
            let inPublicProtocol = parent.keyword == "protocol" && parent.modifiers.contains("public")
            guard keyword == "case" || inPublicProtocol else { return nil }
        }
        return (enclosing.map(\.name) + [name]).joined(separator: ".")
    }

    /// The modifiers, the keyword and the name of a declaration line, or nil for another line.
    static func parseDeclaration(_ line: String) -> (modifiers: Set<String>, keyword: String, name: String)? {
        var words = line.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == ":" || $0 == "<" || $0 == "{" })
            .map(String.init)
        var modifiers: Set<String> = []
        while let word = words.first, !declarationKeywords.contains(word) {
            if word.hasPrefix("@") || word.first?.isLetter == true {
                modifiers.insert(word.components(separatedBy: "(").first ?? word)
                words.removeFirst()
            } else {
                return nil
            }
        }
        guard let keyword = words.first else { return nil }
        let name = keyword == "init" || keyword == "subscript" ? keyword : (words.dropFirst().first ?? keyword)
        return (modifiers, keyword, name)
    }

    /// The declarations around line `index`, outermost first: each is the nearest line above
    /// with less indentation that declares something (the project's formatting nests by indent).
    static func enclosingDeclarations(of index: Int, in lines: [String])
        -> [(modifiers: Set<String>, keyword: String, name: String)]
    {
        var result: [(modifiers: Set<String>, keyword: String, name: String)] = []
        var indent = lines[index].prefix { $0 == " " }.count
        var line = index - 1
        while indent > 0, line >= 0 {
            let text = lines[line]
            let lineIndent = text.prefix { $0 == " " }.count
            if lineIndent < indent, !text.trimmingCharacters(in: .whitespaces).isEmpty, docText(text) == nil,
                !text.trimmingCharacters(in: .whitespaces).hasPrefix("//")
            {
                if let declaration = parseDeclaration(text.trimmingCharacters(in: .whitespaces)) {
                    result.insert(declaration, at: 0)
                }
                indent = lineIndent
            }
            line -= 1
        }
        return result
    }

    // MARK: The compiled copy

    /// The bodies of the `docExample…` functions, unindented by one level.
    static func compiledBodies(of text: String) -> [(function: String, lines: [String])] {
        var bodies: [(function: String, lines: [String])] = []
        var function: String?
        var inSignature = false
        var current: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if function == nil {
                if line.hasPrefix("func docExample") {
                    function = String(line.dropFirst(5).prefix { $0.isLetter || $0.isNumber || $0 == "_" })
                    inSignature = !line.hasSuffix("{")
                    current = []
                }
            } else if inSignature {
                inSignature = !line.hasSuffix("{")
            } else if line == "}" {
                bodies.append((function ?? "", current))
                function = nil
            } else {
                current.append(line.hasPrefix("    ") ? String(line.dropFirst(4)) : line)
            }
        }
        return bodies
    }

    /// What is wrong, one line each: a documented example with no compiled copy, or a compiled
    /// function that no documentation shows.
    static func problems(examples: [Example], compiled: [(function: String, lines: [String])]) -> [String] {
        var problems: [String] = []
        for example in examples where !compiled.contains(where: { $0.lines == example.lines }) {
            problems.append(
                "\(example): this example is not compiled; put it, as written, in the body of a docExample function"
                    + " of \(compiledPath)")
        }
        for body in compiled where !examples.contains(where: { $0.lines == body.lines }) {
            problems.append("\(compiledPath): \(body.function) compiles an example that no documentation shows")
        }
        return problems
    }

    // MARK: The files

    /// The names `Versola` re-exports from VersolaHTTP (`public typealias X = VersolaHTTP.Y`).
    static func reexportedNames(in sources: [(path: String, text: String)]) -> Set<String> {
        var names: Set<String> = []
        for source in sources {
            for line in source.text.split(separator: "\n") where line.hasPrefix("public typealias ") {
                guard let target = line.components(separatedBy: "= VersolaHTTP.").dropFirst().first else { continue }
                names.insert(String(target.prefix { $0.isLetter || $0.isNumber }))
            }
        }
        return names
    }

    /// Whether a VersolaHTTP file declares or extends one of `names`.
    static func concerns(_ text: String, names: Set<String>) -> Bool {
        for line in text.split(separator: "\n") {
            guard let (_, keyword, name) = parseDeclaration(String(line)),
                ["struct", "class", "enum", "actor", "protocol", "extension"].contains(keyword)
            else { continue }
            if names.contains(name) { return true }
        }
        return false
    }

    static func files(under directory: String, ending suffix: String) throws -> [(path: String, text: String)] {
        let base = root.appendingPathComponent(directory)
        guard let enumerator = FileManager.default.enumerator(atPath: base.path) else { return [] }
        var files: [(path: String, text: String)] = []
        for case let relative as String in enumerator where relative.hasSuffix(suffix) {
            let text = try String(contentsOf: base.appendingPathComponent(relative), encoding: .utf8)
            files.append(("\(directory)/\(relative)", text))
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Every documented example of the module, in file order.
    static func documentedExamples() throws -> [Example] {
        let versola = try files(under: "Sources/Versola", ending: ".swift")
        let names = reexportedNames(in: versola)
        let http = try files(under: "Sources/VersolaHTTP", ending: ".swift").filter { concerns($0.text, names: names) }
        let articles = try files(under: "Sources/Versola/Versola.docc", ending: ".md")
        return (versola + http).flatMap { docCommentExamples(in: $0.text, file: $0.path) }
            + articles.flatMap { articleExamples(in: $0.text, file: $0.path) }
    }

    // MARK: Tests

    @Test func everyDocumentedExampleIsCompiledAsWritten() throws {
        let examples = try Self.documentedExamples()
        let compiledFiles = try Self.files(under: "Tests/ReadmeExamples", ending: ".swift")
            .filter { $0.path.hasPrefix("Tests/ReadmeExamples/DocCommentExamples") }
        #expect(compiledFiles.count == 2, "the doc comments' examples and the articles' are compiled")
        let compiled = compiledFiles.flatMap { Self.compiledBodies(of: $0.text) }
        #expect(examples.count > 20, "the documentation of Versola has its examples")
        #expect(examples.contains { $0.symbol == "Session" })
        #expect(examples.contains { $0.symbol == "OpenIDClient" })
        #expect(examples.contains { $0.symbol.hasPrefix("article ") }, "the DocC articles are checked too")
        for problem in Self.problems(examples: examples, compiled: compiled) {
            Issue.record(Comment(rawValue: problem))
        }
    }

    /// The check itself: an edited example is reported with its file, line and symbol; so is
    /// a compiled copy left behind; examples on declarations that are not public are not taken.
    @Test func anExampleThatDiffersFromItsCompiledCopyIsReported() {
        let source = """
            /// Does a thing.
            ///
            /// ```swift
            /// let thing = Thing()
            /// print(thing.value)
            /// ```
            @available(macOS 15, *)
            public struct Thing {
                /// Sets it.
                /// ```swift
                /// thing.set(1)
                /// ```
                public func set(_ value: Int) {}
                /// Internal.
                /// ```swift
                /// thing.hidden()
                /// ```
                func hidden() {}
            }
            /// ```swift
            /// helper()
            /// ```
            package func helper() {}
            public protocol Doer {
                /// ```swift
                /// doer.run()
                /// ```
                func run()
            }
            """
        let examples = Self.docCommentExamples(in: source, file: "Sources/Versola/Thing.swift")
        #expect(examples.map(\.description) == [
            "Sources/Versola/Thing.swift:3 (Thing)", "Sources/Versola/Thing.swift:10 (Thing.set)",
            "Sources/Versola/Thing.swift:25 (Doer.run)",
        ])
        let compiled = Self.compiledBodies(
            of: """
                func docExampleThing() {
                    let thing = Thing()
                    print(thing.value + 1)
                }

                func docExampleThingSet(
                    thing: Thing
                ) {
                    thing.set(1)
                }

                func docExampleDoerRun(doer: any Doer) {
                    doer.run()
                }
                """)
        #expect(Self.problems(examples: examples, compiled: compiled) == [
            "Sources/Versola/Thing.swift:3 (Thing): this example is not compiled; put it, as written, in the body"
                + " of a docExample function of \(Self.compiledPath)",
            "\(Self.compiledPath): docExampleThing compiles an example that no documentation shows",
        ])
    }
}
