import Testing
@testable import Versola
import VersolaHTTP

@Suite struct PushedFrontChannelTests {
    @Test("A3: the front channel repeats the pushed response_type, redirect_uri, scope and prompt, and nothing else")
    func repeatsResponseTypeRedirectAndScope() {
        let pushed = [
            ("response_type", "code"), ("client_id", "cli"), ("redirect_uri", "http://127.0.0.1:8765/callback"),
            ("scope", "openid profile"), ("state", "s"), ("nonce", "n"), ("code_challenge", "c"),
            ("code_challenge_method", "S256"), ("dpop_jkt", "j"), ("prompt", "consent"), ("login_hint", "alice"),
        ]
        let pairs = PushedFrontChannel.pairs(clientID: "cli", requestURI: "urn:example:1", pushed: pushed)
        #expect(pairs.map(\.0) == ["client_id", "request_uri", "response_type", "redirect_uri", "scope", "prompt"])
        #expect(pairs.map(\.1) == ["cli", "urn:example:1", "code", "http://127.0.0.1:8765/callback", "openid profile", "consent"])
    }

    @Test("A3: a push without those parameters gives client_id and request_uri alone")
    func onlyWhatWasPushed() {
        let pairs = PushedFrontChannel.pairs(clientID: "cli", requestURI: "urn:example:2", pushed: [("state", "s")])
        #expect(pairs.map(\.0) == ["client_id", "request_uri"])
    }
}
