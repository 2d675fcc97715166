import Foundation
import Testing
import VersolaCrypto

@testable import Versola
import VersolaHTTP

@Suite struct KeyFileKeySourceTests {
    @Test func createsAPrivateKeyFileOnceAndReusesIt() async throws {
        let directory = try TemporaryDirectory()
        let source = KeyFileKeySource(configHome: directory.url)
        let first = try await source.dataKey()
        let second = try await KeyFileKeySource(configHome: directory.url).dataKey()
        #expect(first == second)
        #expect(source.keyFile.path == directory.path + "/versola/key")
        #expect(permissions(source.keyFile.path) == 0o600)  // L3
        #expect(permissions(directory.file("versola")) == 0o700)
        #expect(try Data(contentsOf: source.keyFile) == Data(first.bytes))
    }

    @Test func racingCreatorsGetTheSameKey() async throws {
        let directory = try TemporaryDirectory()
        let keys = try await withThrowingTaskGroup(of: SymmetricKey.self) { group in
            for _ in 0..<8 { group.addTask { try await KeyFileKeySource(configHome: directory.url).dataKey() } }
            return try await group.reduce(into: Set<SymmetricKey>()) { $0.insert($1) }
        }
        #expect(keys.count == 1)
        #expect(PrivateFiles.names(in: directory.file("versola")) == ["key"])
    }

    @Test(arguments: [mode_t(0o644), mode_t(0o640), mode_t(0o604), mode_t(0o620)])
    func refusesAKeyFileOthersCanAccess(mode: mode_t) async throws {
        let directory = try TemporaryDirectory()
        let source = KeyFileKeySource(configHome: directory.url)
        _ = try await source.dataKey()
        chmod(source.keyFile.path, mode)
        await expectInvalidConfiguration(containing: "chmod 600 \(source.keyFile.path)") { () throws(VersolaError) in
            try await source.dataKey()
        }
    }

    @Test func refusesADamagedKeyFile() async throws {
        let directory = try TemporaryDirectory()
        let source = KeyFileKeySource(configHome: directory.url)
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
            profile: "team", directory: directory.url, keySource: KeyFileKeySource(configHome: directory.url))
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

@Suite struct SecretServiceKeySourceTests {
    // S10: without the tool (or without a session bus) the source is locked, not broken.
    @Test func missingToolIsUnlockRequired() async throws {
        let source = try SecretServiceKeySource(profile: "team", environment: ["PATH": "/nonexistent"])
        #expect(source.tool == nil)
        await expectError(.recoverable(.unlockRequired)) { () throws(VersolaError) in try await source.dataKey() }
        let named = try SecretServiceKeySource(profile: "team", tool: URL(fileURLWithPath: "/nonexistent/secret-tool"))
        await expectError(.recoverable(.unlockRequired)) { () throws(VersolaError) in try await named.dataKey() }
    }

    /// A stand-in for `secret-tool` backed by a file, to test the available path here
    /// (no Secret Service runs on this machine).
    private func fakeTool(in directory: TemporaryDirectory, failing: Bool = false) throws -> URL {
        let script = directory.file("secret-tool")
        let store = directory.file("secret")
        let body =
            failing
            ? "echo 'secret-tool: Cannot autolaunch D-Bus without X11 $DISPLAY' >&2; exit 1"
            : """
            case "$1" in
              lookup) [ -f '\(store)' ] || exit 1; cat '\(store)' ;;
              store) cat > '\(store)'; echo "$@" > '\(store).args' ;;
              *) exit 2 ;;
            esac
            """
        // Opened close-on-exec: a program another test starts while this file is open for
        // writing then drops the descriptor when it execs. (Written with `Data.write`, every
        // program started meanwhile kept it open for its whole life, and running the script
        // failed with ETXTBSY for as long as one of them ran.)
        let descriptor = open(script, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o700)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        let bytes = Array("#!/bin/sh\n\(body)\n".utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
        chmod(script, 0o700)
        return URL(fileURLWithPath: script)
    }

    @Test func storesAKeyOnFirstUseAndReadsItBack() async throws {
        let directory = try TemporaryDirectory()
        let source = try SecretServiceKeySource(profile: "team", tool: try fakeTool(in: directory))
        let first = try await source.dataKey()
        let second = try await source.dataKey()
        #expect(first == second)
        let arguments = try String(contentsOfFile: directory.file("secret.args"), encoding: .utf8)
        #expect(arguments == "store --label=Versola session key (team) application versola profile team\n")
    }

    @Test func toolComplaintsAreUnlockRequired() async throws {
        let directory = try TemporaryDirectory()
        let source = try SecretServiceKeySource(profile: "team", tool: try fakeTool(in: directory, failing: true))
        await expectError(.recoverable(.unlockRequired)) { () throws(VersolaError) in try await source.dataKey() }
    }

    @Test func aForeignItemIsAConfigurationError() async throws {
        let directory = try TemporaryDirectory()
        try Data("hunter2".utf8).write(to: URL(fileURLWithPath: directory.file("secret")))
        let source = try SecretServiceKeySource(profile: "team", tool: try fakeTool(in: directory))
        await expectInvalidConfiguration(containing: "not a Versola key") { () throws(VersolaError) in
            try await source.dataKey()
        }
    }
}

@Suite struct SessionStorageTests {
    @Test func opensTheXDGLocations() async throws {
        let directory = try TemporaryDirectory()
        let environment = ["XDG_STATE_HOME": directory.file("state"), "XDG_CONFIG_HOME": directory.file("config")]
        let storage = try SessionStorage.standard(profile: "team", environment: environment)
        #expect(storage.store.recordFile.path == directory.file("state/versola/team/session"))
        #expect((storage.keySource as? KeyFileKeySource)?.keyFile.path == directory.file("config/versola/key"))
        try await storage.store.save(StorageSamples.minimal)
        #expect(try await storage.store.load() == StorageSamples.minimal)

        let passphrase = try SessionStorage.standard(profile: "team", keySource: .passphrase, environment: environment)
        #expect(passphrase.passphraseKeySource != nil)
        let secretService = try SessionStorage.standard(
            profile: "team", keySource: .secretService, environment: environment.merging(["PATH": "/nonexistent"]) { $1 })
        await expectError(.recoverable(.unlockRequired)) { () throws(VersolaError) in
            try await secretService.keySource.dataKey()
        }
        #expect(KeySourceKind(rawValue: "key-file") == .keyFile)
        #expect(KeySourceKind(rawValue: "secret-service") == .secretService)
    }

    @Test func homeFallbacksAndRelativeValues() throws {
        let fromHome = try XDGDirectories.current(environment: ["HOME": "/home/ana", "XDG_STATE_HOME": "relative"])
        #expect(fromHome.stateHome.path == "/home/ana/.local/state")
        #expect(fromHome.configHome.path == "/home/ana/.config")
        let explicit = try XDGDirectories.current(environment: ["XDG_STATE_HOME": "/s", "XDG_CONFIG_HOME": "/c"])
        #expect(explicit.stateHome.path == "/s" && explicit.configHome.path == "/c")
    }
}
