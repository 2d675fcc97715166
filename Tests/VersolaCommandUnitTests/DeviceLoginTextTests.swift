import Foundation
import Testing
import Versola

@testable import VersolaCommand

/// What `versola login --device` shows of a provider's answer (A14, L5): the page holding the
/// code only when it is https and on the host of the verification page.
@Suite struct DeviceLoginTextTests {
    static func prompt(_ complete: String?) -> DeviceAuthorizationPrompt {
        DeviceAuthorizationPrompt(
            userCode: "WDJB-MJHT", verificationURI: "https://id.example/device", verificationURIComplete: complete,
            expiresAt: Date(timeIntervalSince1970: 600))
    }

    @Test("A14 L5: the page holding the code is shown only when https and on the verification page's host")
    func completePageRules() {
        let now = Date(timeIntervalSince1970: 0)
        let same = DeviceLoginText.prompt(Self.prompt("https://ID.example/device?code=WDJB-MJHT"), now: now)
        #expect(same.contains("Or open this page, which already holds the code:\n  https://ID.example/device?code=WDJB-MJHT\n"))

        let other = DeviceLoginText.prompt(Self.prompt("https://id.example.evil.test/device?code=WDJB-MJHT"), now: now)
        #expect(!other.contains("Or open this page"))
        #expect(!other.contains("https://id.example.evil.test"))
        #expect(other.contains("on another host, id.example.evil.test,"))

        for bad in ["javascript:alert(1)//https://id.example/", "http://id.example/device?code=x", "data:text/html,hi"] {
            let shown = DeviceLoginText.prompt(Self.prompt(bad), now: now)
            #expect(!shown.contains("Or open this page"), "\(bad)")
            #expect(!shown.contains(bad), "\(bad)")
            #expect(shown.contains("not https"), "\(bad)")
        }
        // The test provider on loopback may use plain http.
        var loopback = Self.prompt("http://127.0.0.1:8080/device?user_code=x")
        loopback.verificationURI = "http://127.0.0.1:8080/device"
        #expect(DeviceLoginText.completePage(loopback) == .shown("http://127.0.0.1:8080/device?user_code=x"))
        #expect(DeviceLoginText.completePage(Self.prompt(nil)) == nil)
    }
}
