import Foundation
import Testing
import Versola
import VersolaJOSE

/// The validator remembers which keys it chose for the last token's `kid` and algorithm; that
/// memory must follow the key set it was chosen from, never outlive it.
@Suite struct IDTokenKeyChoiceTests {
    @Test("A7: a kid that moves to another key in a new key set is looked up in the new set, never answered from the last one")
    func keyChoiceFollowsTheKeySet() throws {
        let harness = EngineHarness()
        let validator = IDTokenValidator(
            configuration: harness.configuration, metadata: try ProviderFixture.metadata(), keys: harness.keyCache(),
            clock: harness.clock)
        let keys = try ProviderFixture.keys()
        // The same kid on two keys, as a provider that rotates without renaming would serve it.
        let first = JWKSet(keys: [
            try JWK(material: .rsa(modulus: keys.rsa1.modulus, exponent: keys.rsa1.exponent), keyID: "k", use: "sig")
        ])
        let second = JWKSet(keys: [
            try JWK(material: .rsa(modulus: keys.rsa2.modulus, exponent: keys.rsa2.exponent), keyID: "k", use: "sig")
        ])
        let claims = ProviderFixture.claims(now: harness.clock.wallClockNow)
        let byFirst = try ProviderFixture.idToken(claims, key: "rsa-1", kid: "k")
        let bySecond = try ProviderFixture.idToken(claims, key: "rsa-2", kid: "k")
        func accepted(_ token: String, _ set: JWKSet) -> Bool {
            (try? validator.validate(token, keySet: set, nonce: "n-1", accessToken: nil)) != nil
        }
        for _ in 0..<2 {
            #expect(accepted(byFirst, first))
            #expect(!accepted(bySecond, first))
            #expect(accepted(bySecond, second))
            #expect(!accepted(byFirst, second))
        }
        // A set equal in content but made anew is searched again, with the same answer.
        let again = JWKSet(keys: second.keys.map { $0 })
        #expect(accepted(bySecond, again))
        #expect(!accepted(byFirst, again))
    }
}
