import Foundation
import Testing
import VersolaCrypto

@testable import Versola
import VersolaTesting

/// Passphrases are derived from their bytes (a key file of random bytes keeps its entropy),
/// and a passphrase file an earlier version wrote (derived from the bytes decoded as UTF-8 with
/// replacement) still opens and is migrated.
@Suite struct PassphraseBytesTests {
    private static let cheap = KeyDerivation.ScryptParameters(cost: 1 << 10, blockSize: 8, parallelism: 1)
    /// Two key files that earlier versions took for the same passphrase: every byte is invalid
    /// UTF-8, so both read as 32 U+FFFD.
    private static let first = [UInt8](repeating: 0x80, count: 16) + [UInt8](repeating: 0x9F, count: 16)
    private static let second = [UInt8](repeating: 0xFF, count: 32)

    @Test("S10: two binary key files that earlier versions confused no longer unlock each other")
    func binaryPassphrasesStayApart() async throws {
        #expect(Passphrase.legacy(Self.first) == Passphrase.legacy(Self.second))
        let directory = try TemporaryDirectory()
        let source = try PassphraseKeySource(profile: "team", directory: directory.url, parameters: Self.cheap)
        try await source.unlock(passphrase: Passphrase(bytes: Self.first))
        try await FileSessionStore(profile: "team", directory: directory.url, keySource: source).save(StorageSamples.full)

        let other = try PassphraseKeySource(profile: "team", directory: directory.url)
        await expectError(.recoverable(.unlockRequired)) { () throws(VersolaError) in
            try await other.unlock(passphrase: Passphrase(bytes: Self.second))
        }
        #expect(await other.isLocked)
        try await other.unlock(passphrase: Passphrase(bytes: Self.first))
        let store = try FileSessionStore(profile: "team", directory: directory.url, keySource: other)
        #expect(try await store.load() == StorageSamples.full)
    }

    /// Writes a passphrase file as an earlier version did for `bytes`, and a record sealed with its key.
    private static func writeVersionOne(_ bytes: [UInt8], in directory: TemporaryDirectory) async throws -> URL {
        let profile = try ProfileDirectory(profile: "team", stateHome: directory.url)
        try profile.ensure()
        let context = PassphraseKeySource.checkContext(profile)
        var made = try PassphraseSettings.create(passphrase: Passphrase.legacy(bytes), parameters: cheap, context: context)
        made.settings.version = 1
        try PrivateFiles.writeAtomically(made.settings.serialized(), to: profile.passphrasePath, in: profile.path)
        let store = try FileSessionStore(profile: "team", directory: directory.url, keySource: FixedKeySource(key: made.key))
        try await store.save(StorageSamples.full)
        return URL(fileURLWithPath: profile.passphrasePath)
    }

    @Test("S10: a record sealed under the earlier derivation still opens, and is migrated to the bytes")
    func earlierDerivationIsMigrated() async throws {
        let directory = try TemporaryDirectory()
        let file = try await Self.writeVersionOne(Self.first, in: directory)
        #expect(try String(contentsOf: file, encoding: .utf8).contains(#""version":1"#))

        let source = try PassphraseKeySource(profile: "team", directory: directory.url)
        try await source.unlock(passphrase: Passphrase(bytes: Self.first))
        let store = try FileSessionStore(profile: "team", directory: directory.url, keySource: source)
        #expect(try await store.load() == StorageSamples.full)
        let migrated = try String(contentsOf: file, encoding: .utf8)
        #expect(migrated.contains(#""version":2"#) && migrated.contains(#""key":"#))
        #expect(permissions(file.path) == 0o600)

        // Migrated: only the bytes themselves open it now, not the key file that used to collide.
        let other = try PassphraseKeySource(profile: "team", directory: directory.url)
        await expectError(.recoverable(.unlockRequired)) { () throws(VersolaError) in
            try await other.unlock(passphrase: Passphrase(bytes: Self.second))
        }
        let again = try PassphraseKeySource(profile: "team", directory: directory.url)
        try await again.unlock(passphrase: Passphrase(bytes: Self.first))
        #expect(try await FileSessionStore(profile: "team", directory: directory.url, keySource: again).load() == StorageSamples.full)
    }

    @Test("S10: an earlier version's file for a UTF-8 passphrase keeps its key and only changes version")
    func utf8PassphraseMigratesInPlace() async throws {
        let directory = try TemporaryDirectory()
        let text = Array("correct horse ünïcode".utf8)
        let file = try await Self.writeVersionOne(text, in: directory)
        let before = try #require(PassphraseSettings(serialized: Array(try Data(contentsOf: file))))
        let source = try PassphraseKeySource(profile: "team", directory: directory.url)
        try await source.unlock(passphrase: "correct horse ünïcode")
        #expect(try await FileSessionStore(profile: "team", directory: directory.url, keySource: source).load() == StorageSamples.full)
        let after = try #require(PassphraseSettings(serialized: Array(try Data(contentsOf: file))))
        #expect(after.version == 2 && after.salt == before.salt && after.check == before.check && after.wrappedKey == nil)
    }
}
