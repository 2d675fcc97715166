import Foundation
import Testing
import Versola

@testable import VersolaCommand

/// A home directory named with bytes that are not UTF-8 is refused, never read as another
/// (L3, S11): Swift sees each invalid byte as U+FFFD, so `state-\x80` and `state-\xff` were one.
@Suite("home names", .serialized)
struct HomeNameScenarios {
    @Test("L3 S11: versola run with an XDG_STATE_HOME or XDG_CONFIG_HOME that is not UTF-8 refuses it, naming the variable")
    func nonUTF8HomeIsRefused() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            for (variable, suffix) in [("XDG_STATE_HOME", "state"), ("XDG_CONFIG_HOME", "config")] {
                for byte in ["\\200", "\\377"] {
                    let prelude = "\(variable)=\"$(printf '%s/\(suffix)-\(byte)' '\(cli.home.path)')\"; export \(variable)"
                    // Through the agent (which runs with the harness's homes) and without it.
                    for arguments in [["status", "--json"], ["status", "--json", "--no-agent"], ["token"]] {
                        let outcome = try await LocalProcessScenarios.runInShell(cli, prelude: prelude, arguments)
                        #expect(outcome.status == ExitStatus.configuration.rawValue, "\(variable) \(byte) \(arguments)")
                        #expect(outcome.stderr.contains("\(variable) is not valid UTF-8"), "\(arguments): \(outcome.stderr)")
                        #expect(outcome.stdout.isEmpty, "\(arguments)")
                    }
                }
            }
            // The named homes were never made under another name.
            let made = try FileManager.default.contentsOfDirectory(atPath: cli.home.path)
            #expect(!made.contains { $0.unicodeScalars.contains("\u{FFFD}") }, "\(made)")
        }
    }
}
