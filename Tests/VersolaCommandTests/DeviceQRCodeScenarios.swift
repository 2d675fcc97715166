import Foundation
import Testing
import VersolaTestIdP
import VersolaTesting

@testable import VersolaCommand

/// The device sign-in's QR code on a real terminal (a pseudo-terminal from `script`): drawn
/// beside the code, it decodes (zbar) to the exact page holding the code; `--no-qr` leaves it out.
@Suite("versola login --device: the QR code", .serialized)
struct DeviceQRCodeScenarios {
    /// Runs `versola login --device` on a terminal until it shows the code; returns the screen
    /// so far, then approves the page and waits for the sign-in to end.
    static func screen(_ cli: CLIHarness, _ extra: [String]) async throws -> String {
        let stem = cli.home.path + "/terminal-" + UUID().uuidString.prefix(8)
        let command = ([CLIHarness.executable, "login", "--device", "--issuer", cli.idp.issuer, "--client-id", "versola-test"] + extra)
            .map(ShellWord.quoted).joined(separator: " ")
        let pid = try cli.spawn("/usr/bin/script", ["-qec", command, "/dev/null"], extraEnvironment: ["LANG": "C.UTF-8"], stem: stem)
        // The waiting indicator starts after the code and its QR code are written: a pseudo-terminal
        // may pass one write on in pieces, so the prompt's own last line is no sign the QR code came.
        guard let shown = await cli.contents(of: stem + ".out", containing: "Waiting for the approval on the other device") else {
            kill(pid, SIGKILL)
            _ = await cli.finished(pid, stem: stem)
            throw CocoaError(.fileReadNoSuchFile)
        }
        // A terminal ends lines with "\r\n", one Character in Swift.
        let lines = shown.split(whereSeparator: \.isNewline).map { String($0).trimmingCharacters(in: .whitespaces) }
        let page = try #require(lines.firstIndex { $0.hasPrefix("Or open this page") }.map { lines[$0 + 1] })
        let curl = try cli.spawn("curl", ["-sS", "-o", "/dev/null", page], stem: stem + "-curl")
        _ = await cli.finished(curl, stem: stem + "-curl")
        #expect(await cli.finished(pid, stem: stem).status == 0)
        return shown
    }

    @Test("A14: on a UTF-8 terminal the device sign-in draws a QR code of the page holding the code; --no-qr does not")
    func codeOnTheTerminal() async throws {
        let cli = try await CLIHarness(configure: { $0.deviceInterval = 1 })
        try await withHarness(cli) { cli in
            let shown = try await Self.screen(cli, [])
            let lines = shown.split(whereSeparator: \.isNewline).map(String.init)
            let page = try #require(lines.firstIndex { $0.hasPrefix("Or open this page") }.map { lines[$0 + 1].trimmingBlanks })
            let drawn = lines.filter { $0.hasPrefix("  ") && $0.contains("█") }.map { String($0.dropFirst(2)) }
            try #require(!drawn.isEmpty, "no QR code on the terminal: \(shown)")
            #expect(drawn.allSatisfy { $0.count + 2 <= 80 })
            #expect(try QRCodeReader.decode(drawn) == page)
            #expect(try await cli.run(["logout"]).status == 0)
            let plain = try await Self.screen(cli, ["--no-qr"])
            #expect(!plain.contains("█") && !plain.contains("▀"), "--no-qr draws nothing")
        }
    }
}
