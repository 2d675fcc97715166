import Foundation
import Testing
import VersolaCrypto

@testable import Versola
import VersolaHTTP
import VersolaTesting

@Suite struct KeyFileKeySourceTests {
    @Test func createsAPrivateKeyFileOnceAndReusesIt() async throws {
        let directory = try TemporaryDirectory()
        let source = KeyFileKeySource(stateHome: directory.url)
        let first = try await source.dataKey()
        let second = try await KeyFileKeySource(stateHome: directory.url).dataKey()
        #expect(first == second)
        #expect(source.keyFile.path == directory.path + "/versola/key")
        #expect(permissions(source.keyFile.path) == 0o600)  // L3
        #expect(permissions(directory.file("versola")) == 0o700)
        #expect(try Data(contentsOf: source.keyFile) == Data(first.bytes))
    }

    @Test func racingCreatorsGetTheSameKey() async throws {
        let directory = try TemporaryDirectory()
        let keys = try await withThrowingTaskGroup(of: SymmetricKey.self) { group in
            for _ in 0..<8 { group.addTask { try await KeyFileKeySource(stateHome: directory.url).dataKey() } }
            return try await group.reduce(into: Set<SymmetricKey>()) { $0.insert($1) }
        }
        #expect(keys.count == 1)
        #expect(PrivateFiles.names(in: directory.file("versola")) == ["key"])
    }

    @Test(arguments: [mode_t(0o644), mode_t(0o640), mode_t(0o604), mode_t(0o620)])
    func refusesAKeyFileOthersCanAccess(mode: mode_t) async throws {
        let directory = try TemporaryDirectory()
        let source = KeyFileKeySource(stateHome: directory.url)
        _ = try await source.dataKey()
        chmod(source.keyFile.path, mode)
        await expectInvalidConfiguration(containing: "chmod 600 \(source.keyFile.path)") { () throws(VersolaError) in
            try await source.dataKey()
        }
    }

    @Test func refusesADamagedKeyFile() async throws {
        let directory = try TemporaryDirectory()
        let source = KeyFileKeySource(stateHome: directory.url)
        _ = try await source.dataKey()
        try Data([1, 2, 3]).write(to: source.keyFile)
        chmod(source.keyFile.path, 0o600)
        await expectInvalidConfiguration(containing: source.keyFile.path) { () throws(VersolaError) in
            try await source.dataKey()
        }
    }

    @Test func sealsAFileStore() async throws {
        let directory = try TemporaryDirectory()
        let store = try FileSessionStore(
            profile: "team", directory: directory.url, keySource: KeyFileKeySource(stateHome: directory.url))
        try await store.save(StorageSamples.full)
        #expect(try await store.load() == StorageSamples.full)
    }
}

@Suite struct PassphraseKeySourceTests {
    /// Cheap parameters so the suite stays fast; the default cost is exercised once.
    private static let cheap = KeyDerivation.ScryptParameters(cost: 1 << 10, blockSize: 8, parallelism: 1)

    // S10: locked until unlocked; the store reports unlockRequired and keeps the record.
    @Test func lockedUntilUnlocked() async throws {
        let directory = try TemporaryDirectory()
        let source = try PassphraseKeySource(profile: "team", directory: directory.url, parameters: Self.cheap)
        #expect(await source.isLocked)
        await expectError(.recoverable(.unlockRequired)) { () throws(VersolaError) in try await source.dataKey() }
        let store = try FileSessionStore(profile: "team", directory: directory.url, keySource: source)
        #expect(try await store.load() == nil)  // nothing stored: no key needed
        await expectError(.recoverable(.unlockRequired)) { () throws(VersolaError) in
            try await store.save(StorageSamples.full)
        }
        try await source.unlock(passphrase: "correct horse")
        try await store.save(StorageSamples.full)
        await source.lock()
        await expectError(.recoverable(.unlockRequired)) { () throws(VersolaError) in try await store.load() }
        #expect(FileManager.default.fileExists(atPath: store.recordFile.path))
        #expect(permissions(source.passphraseFile.path) == 0o600)
    }

    // S10 / E9: a wrong passphrase is unlockRequired, never credentialsInvalidated, and wipes nothing.
    @Test func wrongPassphraseStaysLockedRightOneOpens() async throws {
        let directory = try TemporaryDirectory()
        let first = try PassphraseKeySource(profile: "team", directory: directory.url, parameters: Self.cheap)
        try await first.unlock(passphrase: "correct horse")
        try await FileSessionStore(profile: "team", directory: directory.url, keySource: first).save(StorageSamples.full)

        // A later run: a new source reads the stored salt and check value.
        let later = try PassphraseKeySource(profile: "team", directory: directory.url)
        let store = try FileSessionStore(profile: "team", directory: directory.url, keySource: later)
        let sealed = try Data(contentsOf: store.recordFile)
        for wrong in ["Correct horse", "correct horse ", "", "battery staple"] {
            await expectError(.recoverable(.unlockRequired)) { () throws(VersolaError) in
                try await later.unlock(passphrase: wrong)
            }
            #expect(await later.isLocked)
        }
        await expectError(.recoverable(.unlockRequired)) { () throws(VersolaError) in try await store.load() }
        #expect(try Data(contentsOf: store.recordFile) == sealed)
        try await later.unlock(passphrase: "correct horse")
        #expect(try await store.load() == StorageSamples.full)
    }

    @Test func defaultCostUnlocks() async throws {
        let directory = try TemporaryDirectory()
        let source = try PassphraseKeySource(profile: "team", directory: directory.url)
        try await source.unlock(passphrase: "correct horse")
        let text = try String(contentsOf: source.passphraseFile, encoding: .utf8)
        #expect(text.contains("\"N\":32768") && text.contains("\"r\":8") && text.contains("\"p\":1"))
    }

    @Test func eachProfileHasItsOwnSalt() async throws {
        let directory = try TemporaryDirectory()
        let work = try PassphraseKeySource(profile: "team", directory: directory.url, parameters: Self.cheap)
        let home = try PassphraseKeySource(profile: "home", directory: directory.url, parameters: Self.cheap)
        try await work.unlock(passphrase: "same")
        try await home.unlock(passphrase: "same")
        #expect(try await work.dataKey() != home.dataKey())
    }

    @Test func aDamagedPassphraseFileIsAConfigurationError() async throws {
        let directory = try TemporaryDirectory()
        let source = try PassphraseKeySource(profile: "team", directory: directory.url, parameters: Self.cheap)
        try await source.unlock(passphrase: "correct horse")
        for damage in ["", "{}", "not json", #"{"version":1,"kdf":"scrypt","N":1000,"r":8,"p":1,"salt":"AAAAAAAAAAAAAAAAAAAAAA","check":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}"#] {
            try Data(damage.utf8).write(to: source.passphraseFile)
            let again = try PassphraseKeySource(profile: "team", directory: directory.url, parameters: Self.cheap)
            await expectInvalidConfiguration(containing: source.passphraseFile.path) { () throws(VersolaError) in
                try await again.unlock(passphrase: "correct horse")
            }
        }
    }
}

@Suite struct SessionStorageTests {
    @Test func opensTheXDGLocations() async throws {
        let directory = try TemporaryDirectory()
        let environment = ["XDG_STATE_HOME": directory.file("state"), "XDG_CONFIG_HOME": directory.file("config")]
        let storage = try SessionStorage.standard(profile: "team", environment: environment)
        #expect(storage.store.recordFile.path == directory.file("state/versola/team/session"))
        // The key lives beside the records, out of the (often synced) config home.
        #expect((storage.keySource as? KeyFileKeySource)?.keyFile.path == directory.file("state/versola/key"))
        #expect((storage.keySource as? KeyFileKeySource)?.formerKeyFile?.path == directory.file("config/versola/key"))
        try await storage.store.save(StorageSamples.minimal)
        #expect(try await storage.store.load() == StorageSamples.minimal)

        let passphrase = try SessionStorage.standard(profile: "team", keySource: .passphrase, environment: environment)
        #expect(passphrase.passphraseKeySource != nil)
        let secretService = try SessionStorage.standard(
            profile: "team", keySource: .secretService, environment: environment.merging(["PATH": "/nonexistent"]) { $1 })
        await expectInvalidConfiguration(containing: "apt install libsecret-tools") { () throws(VersolaError) in
            try await secretService.keySource.dataKey()
        }
        #expect(KeySourceKind(rawValue: "file") == .keyFile)
        #expect(KeySourceKind(rawValue: "passphrase") == .passphrase)
        #expect(KeySourceKind(rawValue: "secret-service") == .secretService)
    }

    @Test func homeFallbacksAndRelativeValues() throws {
        let fromHome = try XDGDirectories.current(environment: ["HOME": "/home/ana", "XDG_STATE_HOME": "relative"])
        #expect(fromHome.stateHome.path == "/home/ana/.local/state")
        #expect(fromHome.configHome.path == "/home/ana/.config")
        let explicit = try XDGDirectories.current(environment: ["XDG_STATE_HOME": "/s", "XDG_CONFIG_HOME": "/c"])
        #expect(explicit.stateHome.path == "/s" && explicit.configHome.path == "/c")
    }

    @Test("L3 S11: a home whose name is not UTF-8 is refused, never taken for another (two such homes were one)")
    func nonUTF8HomesAreRefused() throws {
        // What the environment's bytes become in Swift: each invalid byte is U+FFFD, so
        // "/h/\u{80}" and "/h/\u{ff}" both read "/h/\u{FFFD}".
        let first = String(decoding: Array("/h/".utf8) + [0x80], as: UTF8.self)
        let second = String(decoding: Array("/h/".utf8) + [0xFF], as: UTF8.self)
        #expect(first == second)
        for name in ["XDG_STATE_HOME", "XDG_CONFIG_HOME"] {
            for value in [first, second] {
                var environment = ["HOME": "/home/ana", "XDG_STATE_HOME": "/s", "XDG_CONFIG_HOME": "/c"]
                environment[name] = value
                #expect(throws: VersolaError.configuration(.invalidConfiguration(
                    "\(name) is not valid UTF-8 (or holds U+FFFD): versola cannot use that directory; "
                        + "set \(name) to a directory whose name is UTF-8"))) {
                    try XDGDirectories.current(environment: environment)
                }
            }
        }
        #expect(throws: VersolaError.self) { try XDGDirectories.current(environment: ["HOME": first]) }
        // A HOME that is not used does not matter.
        let unused = try XDGDirectories.current(environment: ["HOME": first, "XDG_STATE_HOME": "/s", "XDG_CONFIG_HOME": "/c"])
        #expect(unused.stateHome.path == "/s")
    }
}
