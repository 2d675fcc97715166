import Foundation
import Testing
import Versola
import VersolaJOSE

@testable import VersolaCommand

/// P12 through the command: a stored session that no longer decrypts is reported as it is, and
/// `versola login` (what the report suggests) fixes it, keeping the old record aside.
@Suite("versola login over an undecryptable record", .serialized)
struct UndecryptableRecordScenarios {
    @Test("P12: status reports the record; versola login succeeds, moves it aside user-only, and status names it")
    func loginMovesTheRecordAside() async throws {
        let cli = try await CLIHarness()
        try await withHarness(cli) { cli in
            try await cli.login()
            _ = try await cli.run(["agent", "--stop"])
            let file = try SessionStorage.standard(profile: "default", environment: cli.environment).store.recordFile
            var bytes = try Data(contentsOf: file)
            bytes[bytes.count - 3] ^= 0x20
            try bytes.write(to: file)

            let before = try await cli.run(["status"])
            #expect(before.stdout.contains("cannot be read") && before.stdout.contains(file.path), "\(before.stdout)")
            #expect(before.stdout.contains("until a sign-in succeeds"))
            let token = try await cli.run(["token", "--no-agent"])
            #expect(token.status == 4 && token.stderr.contains("versola login"), "\(token.stderr)")

            // What the message suggests works: before P12 this failed with the same exit 4.
            try await cli.login()
            let json = try JSONValue(parsing: try await cli.run(["status", "--json"]).stdout)
            #expect(json["state"] == "authenticated")
            #expect(json["problem"] == nil)
            let aside = try #require(json["setAside"]?.array?.first?.string)
            #expect(try Data(contentsOf: URL(fileURLWithPath: aside)) == bytes)
            let mode = try FileManager.default.attributesOfItem(atPath: aside)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let text = try await cli.run(["status"])
            #expect(text.stdout.contains("moved aside to \(aside)"), "\(text.stdout)")
            #expect(try await cli.run(["token"]).status == 0)
        }
    }
}
