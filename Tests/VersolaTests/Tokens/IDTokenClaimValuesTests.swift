import Foundation
import Testing
import VersolaJOSE

@testable import Versola

/// The one pass that finds the claims an ID token's validation reads (A7).
@Suite("ID token claim lookup")
struct IDTokenClaimValuesTests {
    @Test("A7: each claim is found by its exact name; near names and other claims are not taken for it")
    func exactNamesOnly() throws {
        let object: JSONObject = [
            "ISS": "upper", "is": "short", "isss": "long", "iss ": "space", "sid": "other", "nbg": 1, "non\u{63}e": "n-1",
            "iss": "https://idp", "sub": "s", "aud": ["a", "b"], "azp": "a", "exp": 2, "iat": 1, "nbf": 0,
            "at_hash": "h", "name": "Jane", "email": "j@x", "preferred_username": "jane", "acr": "1", "auth_time": 3,
        ]
        try withValues(object) { values in
            let expected: [(IDTokenClaimValues.Claim, JSONValue)] = [
                (.issuer, "https://idp"), (.subject, "s"), (.audience, ["a", "b"]), (.authorizedParty, "a"),
                (.expiration, 2), (.issuedAt, 1), (.notBefore, 0), (.nonce, "n-1"), (.accessTokenHash, "h"),
                (.name, "Jane"), (.email, "j@x"), (.preferredUsername, "jane"), (.authenticationContextClass, "1"),
                (.authenticationTime, 3),
            ]
            for (claim, value) in expected {
                #expect(values[claim] == value, "\(claim)")
            }
        }
    }

    @Test("A7: an absent claim is nil and a claim that is null is null: they are never confused")
    func absentIsNotNull() throws {
        try withValues(["iss": "https://idp", "azp": nil, "nbf": .null]) { values in
            #expect(values[.issuer] == "https://idp")
            #expect(values[.authorizedParty] == JSONValue.null)
            #expect(values[.notBefore] == JSONValue.null)
            for claim in [IDTokenClaimValues.Claim.subject, .audience, .expiration, .issuedAt, .nonce, .accessTokenHash, .name] {
                #expect(values[claim] == nil, "\(claim)")
            }
        }
    }

    @Test("A7: a name is matched by its UTF-8 code units, not by Unicode equivalence")
    func codeUnitsNotEquivalence() throws {
        // "e" followed by a combining acute accent is canonically equivalent to "é", but is not
        // the same name; neither is a claim, and "nonce" spelled with a Cyrillic "о" is not "nonce".
        try withValues(["n\u{043E}nce": "cyrillic", "nam\u{0065}\u{0301}": "x", "name": "Jane"]) { values in
            #expect(values[.nonce] == nil)
            #expect(values[.name] == "Jane")
        }
    }

    @Test("A7: names and strings written with escapes are read as their decoded code units")
    func escapesAreDecoded() throws {
        let text = #"{"non\u0063e":"n-1","iss":"https:\/\/idp","azp":"a\"b","aud":"c"}"#
        try withValues(text: text) { values in
            #expect(values[.nonce] == "n-1")
            #expect(values.isString(.nonce, equalTo: "n-1") == true)
            #expect(values.isString(.issuer, equalTo: "https://idp") == true)
            #expect(values.isString(.issuer, equalTo: #"https:\/\/idp"#) == false)
            #expect(values.isString(.authorizedParty, equalTo: #"a"b"#) == true)
            #expect(values.isString(.audience, equalTo: "c") == true)
            #expect(values.isString(.audience, equalTo: "cc") == false)
            #expect(values.isString(.subject, equalTo: "c") == nil)
        }
    }

    @Test("A7: a claim that is not a string never equals a string, even one spelling the same text")
    func notAStringNeverEquals() throws {
        try withValues(text: #"{"nonce":1,"iss":["https://idp"],"azp":null}"#) { values in
            #expect(values.isString(.nonce, equalTo: "1") == false)
            #expect(values.isString(.issuer, equalTo: "https://idp") == false)
            #expect(values.isString(.authorizedParty, equalTo: "null") == false)
        }
    }

    @Test("A7: every claim read in place equals the strict parser's member, over the whole fuzz corpus")
    func inPlaceValuesMatchStrictParser() throws {
        let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz")
        let names: [(IDTokenClaimValues.Claim, String)] = [
            (.issuer, "iss"), (.subject, "sub"), (.audience, "aud"), (.authorizedParty, "azp"), (.expiration, "exp"),
            (.issuedAt, "iat"), (.notBefore, "nbf"), (.nonce, "nonce"), (.accessTokenHash, "at_hash"), (.name, "name"),
            (.email, "email"), (.preferredUsername, "preferred_username"), (.authenticationContextClass, "acr"),
            (.authenticationTime, "auth_time"),
        ]
        var objects = 0
        for directory in ["fuzz-jose/corpus", "fuzz-jose/seeds", "fuzz-id-token/corpus", "fuzz-id-token/seeds"] {
            let folder = fuzz.appendingPathComponent(directory)
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                let data = [UInt8](try Data(contentsOf: folder.appendingPathComponent(file)))
                for text in [data[...]] + data.split(separator: UInt8(ascii: "\n")) {
                    let bytes = Array(text)
                    guard case .object(let object)? = try? JSONValue(parsing: bytes) else { continue }
                    objects += 1
                    try withValues(bytes: bytes) { values in
                        for (claim, name) in names {
                            #expect(values[claim] == object[name], "\(directory)/\(file) \(name)")
                            if let expected = object[name] {
                                #expect(values.isString(claim, equalTo: "x") == (expected == "x"))
                                if case .string(let text) = expected { #expect(values.isString(claim, equalTo: text) == true) }
                            } else {
                                #expect(values.isString(claim, equalTo: "x") == nil)
                            }
                        }
                    }
                }
            }
        }
        #expect(objects > 300)
    }

    private func withValues(_ object: JSONObject, _ body: (IDTokenClaimValues) -> Void) throws {
        try withValues(bytes: JSONValue.object(object).serializedBytes(), body)
    }

    private func withValues(text: String, _ body: (IDTokenClaimValues) -> Void) throws {
        try withValues(bytes: Array(text.utf8), body)
    }

    private func withValues(bytes: [UInt8], _ body: (IDTokenClaimValues) -> Void) throws {
        let read: Void? = bytes.withUnsafeBufferPointer { IDTokenClaimValues.reading(payload: $0, body) }
        try #require(read != nil)
    }
}
