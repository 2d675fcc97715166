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
        let values = IDTokenClaimValues(object)
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

    @Test("A7: an absent claim is nil and a claim that is null is null: they are never confused")
    func absentIsNotNull() {
        let values = IDTokenClaimValues(["iss": "https://idp", "azp": nil, "nbf": .null])
        #expect(values[.issuer] == "https://idp")
        #expect(values[.authorizedParty] == JSONValue.null)
        #expect(values[.notBefore] == JSONValue.null)
        for claim in [IDTokenClaimValues.Claim.subject, .audience, .expiration, .issuedAt, .nonce, .accessTokenHash, .name] {
            #expect(values[claim] == nil, "\(claim)")
        }
    }

    @Test("A7: a name is matched by its UTF-8 code units, not by Unicode equivalence")
    func codeUnitsNotEquivalence() {
        // "e" followed by a combining acute accent is canonically equivalent to "é", but is not
        // the same name; neither is a claim, and "nonce" spelled with a Cyrillic "о" is not "nonce".
        let values = IDTokenClaimValues(["n\u{043E}nce": "cyrillic", "nam\u{0065}\u{0301}": "x", "name": "Jane"])
        #expect(values[.nonce] == nil)
        #expect(values[.name] == "Jane")
    }
}
