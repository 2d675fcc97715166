import Foundation
import Testing
import Versola
import VersolaTesting

@testable import VersolaCommand

/// The device sign-in's QR code (A14, issue 39 item 3): what is drawn decodes, with zbar, back
/// to the exact page; it fits 80 columns; it is left out without a UTF-8 locale.
@Suite struct TerminalQRCodeTests {
    static func prompt(_ complete: String?) -> DeviceAuthorizationPrompt {
        DeviceAuthorizationPrompt(
            userCode: "WDJB-MJHT", verificationURI: "https://id.example/device", verificationURIComplete: complete,
            expiresAt: Date(timeIntervalSince1970: 600))
    }

    @Test("A14: the QR code drawn for the page holding the code decodes to it exactly and fits 80 columns")
    func drawnCodeDecodes() throws {
        let page = "https://id.example/device?user_code=WDJB-MJHT"
        let text = try #require(
            DeviceLoginText.qrCode(Self.prompt(page), environment: ["LANG": "C.UTF-8"]),
            "libqrencode (Debian's libqrencode4) is not installed, so no code was drawn")
        let lines = text.split(separator: "\n").map { String($0.dropFirst(2)) }
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 80 })
        try #require(access("/usr/bin/zbarimg", X_OK) == 0, "zbarimg (Debian's zbar-tools) is not installed: nothing decoded")
        #expect(try QRCodeReader.decode(lines) == page)
        // Without the page holding the code, the verification page is drawn.
        let plain = try #require(DeviceLoginText.qrCode(Self.prompt(nil), environment: ["LC_ALL": "en_US.utf8"]))
        let drawn = plain.split(separator: "\n").map { String($0.dropFirst(2)) }
        #expect(try QRCodeReader.decode(drawn) == "https://id.example/device")
    }

    @Test("A14: no QR code without a UTF-8 locale, nor one wider than the terminal")
    func leftOutWhereItCannotShow() {
        #expect(DeviceLoginText.qrCode(Self.prompt(nil), environment: ["LANG": "C"]) == nil)
        #expect(DeviceLoginText.qrCode(Self.prompt(nil), environment: [:]) == nil)
        #expect(DeviceLoginText.qrCode(Self.prompt(nil), environment: ["LC_ALL": "C", "LANG": "C.UTF-8"]) == nil)
        let wide = Array(repeating: Array(repeating: true, count: 77), count: 77)
        #expect(TerminalQRCode.draw(wide) == nil)
    }
}
