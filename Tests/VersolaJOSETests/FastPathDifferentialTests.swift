import Foundation
import Testing

@testable import VersolaJOSE

/// The in-place readings ID token validation uses (skimmed claims, a JWS read in place) against
/// the strict parsers they stand in for (A7): they must agree on every input.
@Suite("Fast and strict JOSE readings agree")
struct FastPathDifferentialTests {
    private static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    /// Every file of the JOSE corpus and seeds, the differential target's seeds, and each line of
    /// the ID token target's inputs (a header and a payload).
    private static func corpus() throws -> [(name: String, bytes: [UInt8])] {
        var inputs: [(String, [UInt8])] = []
        let directories = ["fuzz-jose/corpus", "fuzz-jose/seeds", "fuzz-jose-differential/seeds", "fuzz-id-token/corpus", "fuzz-id-token/seeds"]
        for directory in directories {
            let folder = fuzz.appendingPathComponent(directory)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
                let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
                inputs.append(("\(directory)/\(name)", bytes))
                guard directory.hasPrefix("fuzz-id-token") else { continue }
                for (index, line) in bytes.split(separator: UInt8(ascii: "\n")).enumerated() {
                    inputs.append(("\(directory)/\(name) line \(index + 1)", Array(line)))
                }
            }
        }
        return inputs
    }

    @Test("A7: skimming and the strict JSON parser, and the in-place and strict JWS readings, agree on the whole fuzz corpus")
    func corpusAgrees() throws {
        let inputs = try Self.corpus()
        #expect(inputs.count > 900)
        for input in inputs {
            #expect(FastPathDifferential.disagreement(input.bytes) == nil, "\(input.name)")
        }
    }

    @Test(
        "A7: skimming rejects what the strict parser rejects, with the same error",
        arguments: [
            #"{"a":1,"\u0061":2}"#, #"{"\u0061":1,"b":0,"a":2}"#, #"{"é":1,"é":2}"#, #"{"a":{"b":1,"b":2}}"#, #"[{"x":"\ud800"}]"#,
            "{\"a\":\"\u{01}\"}", #"{"a":01}"#, #"{"a":1e999}"#, #"{"a":99999999999999999999}"#, #"{"a":1,}"#, #"{"a" 1}"#,
            #"{"a":tru}"#, #"{"a":1} x"#, String(repeating: "[", count: 65) + String(repeating: "]", count: 65),
        ])
    func rejectionsAgree(text: String) throws {
        let bytes = Array(text.utf8)
        #expect(throws: JSONError.self) { try bytes.withUnsafeBufferPointer { try JSONValue.skimObject($0) } }
        #expect(FastPathDifferential.jsonDisagreement(bytes) == nil)
    }

    @Test("A7: a duplicate past the first 32 members is found, as the strict parser finds it")
    func duplicateAfterManyMembers() throws {
        let members = (0..<40).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        let bytes = Array("{\(members),\"k\\u0033\":0}".utf8)
        let error = #expect(throws: JSONError.self) { try bytes.withUnsafeBufferPointer { try JSONValue.skimObject($0) } }
        #expect(error?.reason == .duplicateMember("k3"))
        #expect(FastPathDifferential.jsonDisagreement(bytes) == nil)
    }

    @Test("A7: the names kept for the duplicate check (escaped ones too) find every duplicate and no false one, before and past 32 members")
    func namesKeptForTheDuplicateCheck() throws {
        // 64 distinct names share 128 fingerprints: collisions happen and must not be taken for duplicates.
        let distinct = (0..<64).map { $0 % 5 == 0 ? #""n\u00e9\#($0)":0"# : #""name\#($0)":0"# }
        for count in [31, 32, 33, 64] {
            let bytes = Array("{\(distinct.prefix(count).joined(separator: ","))}".utf8)
            let members = try bytes.withUnsafeBufferPointer { try JSONValue.skimObject($0) }
            #expect(members?.count == count)
            #expect(FastPathDifferential.jsonDisagreement(bytes) == nil)
            for repeated in [0, 5, count - 1] {
                // The same name again, written with its escape undone or added.
                let again = repeated % 5 == 0 ? #""né\#(repeated)":1"# : #""na\u006de\#(repeated)":1"#
                let duplicated = Array("{\(distinct.prefix(count).joined(separator: ",")),\(again)}".utf8)
                let error = #expect(throws: JSONError.self) { try duplicated.withUnsafeBufferPointer { try JSONValue.skimObject($0) } }
                #expect(error?.reason == .duplicateMember(repeated % 5 == 0 ? "né\(repeated)" : "name\(repeated)"))
                #expect(FastPathDifferential.jsonDisagreement(duplicated) == nil)
            }
        }
    }

    @Test("A7: each skimmed member is where the strict parser found it, escapes and nesting included")
    func membersAgree() throws {
        let text = #" {"iss":"https:\/\/idp","n\u00e9":"\ud83d\ude00","aud":["a",{"b":[]}],"exp":1.5e3,"x":null} "#
        let bytes = Array(text.utf8)
        let members = try #require(try bytes.withUnsafeBufferPointer { try JSONValue.skimObject($0) })
        #expect(members.map { String(decoding: bytes[$0.valueRange], as: UTF8.self) }
            == [#""https:\/\/idp""#, #""\ud83d\ude00""#, #"["a",{"b":[]}]"#, "1.5e3", "null"])
        #expect(members[1].decodedName == "né")
        #expect(FastPathDifferential.jsonDisagreement(bytes) == nil)
        #expect(try Array("[1]".utf8).withUnsafeBufferPointer { try JSONValue.skimObject($0) } == nil)
    }
}
