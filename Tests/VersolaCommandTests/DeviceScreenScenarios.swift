import Foundation
import Testing
import VersolaTesting

/// The device sign-in's screen in an 80-column terminal (tmux), as `scripts/device-screen.sh`
/// captures it for the README: every line fits, the QR code decodes (zbar) to the page that
/// holds the code, and the README shows what the script makes, the code, its address and the
/// QR code's modules aside.
@Suite("versola login --device: the screen in the README", .serialized)
struct DeviceScreenScenarios {
    static var hasTmux: Bool {
        ["/usr/bin/tmux", "/bin/tmux", "/usr/local/bin/tmux"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The repository's root (this file is Tests/VersolaCommandTests/DeviceScreenScenarios.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// What the script prints: the captured pane.
    static func capture() async throws -> String {
        let cli = try await CLIHarness()
        var outcome = CLIHarness.Outcome(status: -1, stdout: "", stderr: "")
        try await withHarness(cli) { cli in
            let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            let environment = [
                "VERSOLA": CLIHarness.executable, "IDP_BIN_DIR": (executable as NSString).deletingLastPathComponent,
            ]
            let stem = cli.home.path + "/screen"
            let pid = try cli.spawn(
                "/bin/bash", [root + "/scripts/device-screen.sh"], extraEnvironment: environment, stem: stem)
            outcome = await cli.finished(pid, stem: stem)
        }
        try #require(outcome.status == 0, "scripts/device-screen.sh failed: \(outcome.stderr)")
        return outcome.stdout
    }

    /// The screen with what changes from run to run replaced: the provider's port, the user
    /// code, the QR code's rows and the waiting line's spinner and seconds.
    static func normalized(_ screen: String) -> [String] {
        screen.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var text = String(line)
            if text.hasPrefix("  "), text.contains(where: { "█▀▄".contains($0) }) { return "  (QR code row)" }
            text = text.replacingOccurrences(of: #"127\.0\.0\.1:[0-9]+"#, with: "127.0.0.1:PORT", options: .regularExpression)
            text = text.replacingOccurrences(of: #"[A-Z]{4}-[A-Z]{4}"#, with: "CODE-CODE", options: .regularExpression)
            if let range = text.range(of: "Waiting for the approval") {
                text = String(text[range.lowerBound...])
                text = text.replacingOccurrences(of: #"[0-9]+s"#, with: "Ns", options: .regularExpression)
            }
            return text
        }
    }

    /// The capture in README.md's device-screen block (after its command line).
    static func readmeBlock() throws -> String {
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "<!-- device-screen -->\n```text\n$ versola login --device\n"))
        let end = try #require(readme.range(of: "\n```\n<!-- /device-screen -->", range: start.upperBound..<readme.endIndex))
        return String(readme[start.upperBound..<end.lowerBound])
    }

    @Test(
        "A14: the device sign-in's screen fits 80 columns, its QR code decodes to the page holding the code, and README.md shows it as scripts/device-screen.sh captures it",
        .enabled(if: hasTmux, "tmux is not installed"),
        // The sanitizer's own reports would be on the captured screen; the plain run checks it.
        .enabled(if: ProcessInfo.processInfo.environment["TSAN_OPTIONS"] == nil, "under the thread sanitizer"))
    func screenInTheReadme() async throws {
        let screen = try await Self.capture()
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for line in lines { #expect(line.count <= 80, "a line wider than the terminal: \(line)") }
        let page = try #require(lines.firstIndex { $0.hasPrefix("Or open this page") }.map { lines[$0 + 1].trimmingCharacters(in: .whitespaces) })
        let drawn = lines.filter { $0.hasPrefix("  ") && $0.contains("█") }.map { String($0.dropFirst(2)) }
        #expect(try QRCodeReader.decode(drawn) == page, "the QR code is not the page that holds the code")
        let shown = Self.normalized(try Self.readmeBlock()), captured = Self.normalized(screen.trimmingCharacters(in: .newlines))
        #expect(shown == captured, "README.md's device screen is not what scripts/device-screen.sh captures now: run it with --update")
    }
}
