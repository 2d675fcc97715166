import Foundation
import Testing
import Versola
import VersolaJOSE

@testable import VersolaCommand

/// A key file of random bytes handed on a descriptor (`3<keyfile`) is the passphrase, byte for
/// byte, through the real binary and agent (S10).
@Suite("binary passphrases, end to end", .serialized)
struct BinaryPassphraseScenarios {
    @Test("S10: a binary key file on a descriptor signs in; one that earlier versions read as the same text is refused")
    func binaryKeyFiles() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            // Each byte invalid UTF-8, so earlier versions read both as 32 U+FFFD: one passphrase.
            let first = cli.home.path + "/first.key"
            let second = cli.home.path + "/second.key"
            try Data([UInt8](repeating: 0x80, count: 16) + [UInt8](repeating: 0x9F, count: 16)).write(
                to: URL(fileURLWithPath: first))
            try Data([UInt8](repeating: 0xFF, count: 32)).write(to: URL(fileURLWithPath: second))
            let login = try await LocalProcessScenarios.runInShell(
                cli, prelude: "exec 3<'\(first)'",
                [
                    "login", "--issuer", cli.idp.issuer, "--client-id", "versola-test", "--browser-command", CLIHarness.browser,
                    "--key-source", "passphrase", "--passphrase-fd", "3",
                ])
            #expect(login.status == 0, "login failed: \(login.stderr)")
            #expect(try await cli.run(["agent", "--stop"]).status == 0)

            let wrong = try await LocalProcessScenarios.runInShell(cli, prelude: "exec 3<'\(second)'", ["unlock", "--passphrase-fd", "3"])
            #expect(wrong.status == ExitStatus.recoverable.rawValue, "\(wrong.stderr)")
            #expect(try await cli.run(["token"]).status == ExitStatus.recoverable.rawValue)
            let right = try await LocalProcessScenarios.runInShell(cli, prelude: "exec 3<'\(first)'", ["unlock", "--passphrase-fd", "3"])
            #expect(right.status == 0, "\(right.stderr)")
            #expect(try await cli.run(["token"]).status == 0)
        }
    }
}
