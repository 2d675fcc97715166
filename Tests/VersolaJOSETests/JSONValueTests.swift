import Testing
@testable import VersolaJOSE

@Suite struct JSONValueTests {
    private func reason(_ text: String) -> JSONError.Reason? {
        do {
            _ = try JSONValue(parsing: text)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue(parsing: #" {"s":"a\"b\\c\/\n\u00e9\ud83d\ude00","i":-42,"d":1.5e3,"t":true,"f":false,"n":null,"a":[1,[],{}]} "#)
        #expect(value["s"]?.string == "a\"b\\c/\né😀")
        #expect(value["i"]?.int64 == -42)
        #expect(value["d"]?.double == 1500)
        #expect(value["d"]?.int64 == nil)
        #expect(value["t"]?.bool == true)
        #expect(value["f"]?.bool == false)
        #expect(value["n"]?.isNull == true)
        #expect(value["a"]?[0]?.int64 == 1)
        #expect(value["a"]?[1]?.array?.isEmpty == true)
        #expect(value["a"]?[2]?.object?.isEmpty == true)
        #expect(value["a"]?[3] == nil)
        #expect(value["missing"] == nil)
        #expect(value.object?.names == ["s", "i", "d", "t", "f", "n", "a"])
    }

    @Test func keepsIntegersExact() throws {
        #expect(try JSONValue(parsing: "9223372036854775807") == .integer(Int64.max))
        #expect(try JSONValue(parsing: "-9223372036854775808") == .integer(Int64.min))
        #expect(try JSONValue(parsing: "9007199254740993") == .integer(9_007_199_254_740_993))
        #expect(try JSONValue(parsing: "-0") == .integer(0))
        #expect(try JSONValue(parsing: "1.0") == .double(1))
    }

    @Test func rejectsNumbersOutOfRange() {
        #expect(reason("9223372036854775808") == .numberOutOfRange)
        #expect(reason("-9223372036854775809") == .numberOutOfRange)
        #expect(reason("1e400") == .numberOutOfRange)
        #expect(reason("-1e400") == .numberOutOfRange)
    }

    @Test func rejectsMalformedNumbers() {
        for text in ["01", "-", "1.", ".5", "1e", "1e+", "+1", "0x10", "-01", "1.e5"] {
            #expect(reason(text) != nil, "\(text)")
        }
    }

    @Test func rejectsDuplicateMembers() {
        #expect(reason(#"{"a":1,"a":2}"#) == .duplicateMember("a"))
        // Large objects use a set for the check.
        let many = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(reason("{\(many),\"k3\":0}") == .duplicateMember("k3"))
        #expect(reason("{\(many)}") == nil)
        // Escapes are resolved before comparing names.
        #expect(reason(#"{"a":1,"\u0061":2}"#) == .duplicateMember("a"))
    }

    /// RFC 8259 §8.3: names compare code unit by code unit. "é" precomposed (U+00E9) and
    /// decomposed (e, U+0301) are canonically equivalent, so Swift's `==` equates them, but
    /// they are two different names, in small objects, large ones and lookups alike.
    @Test func namesCompareByCodeUnitsWithoutNormalisation() throws {
        let composed = "\u{E9}"
        let decomposed = "e\u{301}"
        #expect(composed == decomposed)  // what the check must not rely on
        #expect(reason(#"{"\#(composed)":1,"\#(decomposed)":2}"#) == nil)
        let many = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(reason(#"{\#(many),"\#(composed)":1,"\#(decomposed)":2}"#) == nil)
        #expect(reason(#"{\#(many),"\#(composed)":1,"\#(composed)":2}"#) == .duplicateMember(composed))

        let object = try #require(try JSONValue(parsing: #"{"\#(composed)":1,"\#(decomposed)":2}"#).object)
        #expect(object[composed] == .integer(1))
        #expect(object[decomposed] == .integer(2))
        var edited = object
        edited[decomposed] = .integer(3)
        #expect(edited[composed] == .integer(1))
        #expect(edited.count == 2)
        #expect(object["\u{E9}x"] == nil)
        #expect(object[""] == nil)
    }

    @Test func rejectsTrailingGarbage() {
        #expect(reason("{} x") == .trailingCharacters)
        #expect(reason("1 2") == .trailingCharacters)
        #expect(reason("null,") == .trailingCharacters)
    }

    @Test func rejectsLoneSurrogates() {
        #expect(reason(#""\ud800""#) == .loneSurrogate)
        #expect(reason(#""\udc00""#) == .loneSurrogate)
        #expect(reason(#""\ud800\u0041""#) == .loneSurrogate)
        #expect(reason(#""\ud800x""#) == .loneSurrogate)
    }

    @Test func rejectsNestingDeeperThanTheLimit() {
        let limit = JSONValue.maximumDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(reason(deepest) == nil)
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(reason(tooDeep) == .nestingTooDeep)
        // Far deeper input fails the same way without exhausting the stack.
        #expect(reason(String(repeating: "[", count: 100_000)) == .nestingTooDeep)
        #expect(reason(String(repeating: #"{"a":"#, count: 100)) == .nestingTooDeep)
    }

    @Test func rejectsBadStrings() {
        #expect(reason("\"a\u{01}b\"") == .controlCharacterInString)
        #expect(reason("\"a\nb\"") == .controlCharacterInString)
        #expect(reason(#""\x""#) == .invalidEscape)
        #expect(reason(#""\u12g4""#) == .invalidEscape)
        #expect(reason(#""abc"#) == .unexpectedEnd)
        #expect(reason(#""abc\"#) == .unexpectedEnd)
    }

    @Test func rejectsInvalidUTF8() throws {
        #expect(throws: JSONError(.invalidUTF8, at: 1)) { try JSONValue(parsing: [0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONError(.invalidUTF8, at: 1)) { try JSONValue(parsing: [0x22, 0xED, 0xA0, 0x80, 0x22]) }
        #expect(try JSONValue(parsing: [0x22, 0xC3, 0xA9, 0x22]) == .string("é"))
    }

    @Test func rejectsOtherMalformedText() {
        for text in ["", " ", "{", "[", "[1,]", "{\"a\"}", "{\"a\":}", "{,}", "{\"a\":1,}", "tru", "nul", "falsey",
            "'a'", "{a:1}", "[1 2]", "\u{FEFF}{}"]
        {
            #expect(reason(text) != nil, "\(text)")
        }
        #expect(reason("") == .unexpectedEnd)
        #expect(reason("tr") == .unexpectedEnd)
        #expect(reason("tx") == .unexpectedCharacter)
    }

    @Test func serializesDeterministicallyInMemberOrder() {
        let value: JSONValue = [
            "typ": "dpop+jwt", "alg": "ES256", "n": 3, "x": 0.5, "ok": true, "none": nil,
            "list": [1, "two"], "esc": "q\"\\\n\u{01}é/",
        ]
        #expect(value.serialized()
            == #"{"typ":"dpop+jwt","alg":"ES256","n":3,"x":0.5,"ok":true,"none":null,"list":[1,"two"],"esc":"q\"\\\n\u0001é/"}"#)
        #expect(JSONValue.double(.infinity).serialized() == "null")
    }

    @Test func roundTripsThroughTheParser() throws {
        let text = #"{"a":[1,-2,3.25,1e-05,"x\u001f"],"b":{"c":null,"d":false},"e":"😀"}"#
        let value = try JSONValue(parsing: text)
        #expect(value.serialized() == text)
        #expect(try JSONValue(parsing: value.serialized()) == value)
    }

    @Test func objectSubscriptSetsReplacesAndRemoves() {
        var object: JSONObject = ["a": 1, "b": 2]
        object["a"] = 10
        object["c"] = 3
        object["b"] = nil
        #expect(object.names == ["a", "c"])
        #expect(object["a"] == 10)
        #expect(JSONObject([("x", 1), ("x", 2)]).count == 1)
    }

    @Test func descriptionNeverShowsStrings() {
        let value: JSONValue = ["access_token": "secret-token-value", "expires_in": 3600]
        #expect(!value.description.contains("secret"))
        #expect(value.description.contains("expires_in"))
        #expect(!"\(value)".contains("secret"))
    }
}
