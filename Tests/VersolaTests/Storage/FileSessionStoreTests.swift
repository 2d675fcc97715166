import Foundation
import Testing
import VersolaCrypto

@testable import Versola
import VersolaHTTP
import VersolaTesting

/// The umask is per process: the suite runs its tests one at a time, and only sets
/// permissive masks (000, 022), which cannot hurt other suites running meanwhile.
@Suite(.serialized) struct FileSessionStoreTests {
    @Test func roundTripAndEmptyProfile() async throws {
        let directory = try TemporaryDirectory()
        let store = try StorageSamples.store(directory)
        #expect(try await store.load() == nil)
        try await store.save(StorageSamples.full)
        #expect(try await store.load() == StorageSamples.full)
        try await store.save(StorageSamples.minimal)
        #expect(try await store.load() == StorageSamples.minimal)
        #expect(store.recordFile.path == directory.path + "/versola/team/session")
    }

    // P5: the file holds ciphertext, not the secrets.
    @Test func recordIsEncrypted() async throws {
        let directory = try TemporaryDirectory()
        let store = try StorageSamples.store(directory)
        try await store.save(StorageSamples.full)
        let bytes = try Data(contentsOf: store.recordFile)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("refresh-SECRET") && !text.contains("verifier-SECRET") && !text.contains("issuer"))
        #expect(bytes.prefix(4) == Data("VSR1".utf8))
    }

    // L3: directories 0700 and files 0600 whatever the umask.
    @Test(arguments: [mode_t(0o000), mode_t(0o022)])
    func permissionsIgnoreTheUmask(mask: mode_t) async throws {
        let directory = try TemporaryDirectory()
        let store = try StorageSamples.store(directory)
        let previous = umask(mask)
        defer { umask(previous) }
        try await store.save(StorageSamples.full)
        try await store.withExclusiveAccess { () throws(VersolaError) in }
        #expect(permissions(directory.file("versola")) == 0o700)
        #expect(permissions(directory.file("versola/team")) == 0o700)
        #expect(permissions(directory.file("versola/team/session")) == 0o600)
        #expect(permissions(directory.file("versola/team/lock")) == 0o600)
    }

    @Test func existingLooseDirectoriesAreTightened() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("versola/team"), withIntermediateDirectories: true)
        chmod(directory.file("versola"), 0o755)
        chmod(directory.file("versola/team"), 0o777)
        try await StorageSamples.store(directory).save(StorageSamples.minimal)
        #expect(permissions(directory.file("versola")) == 0o700)
        #expect(permissions(directory.file("versola/team")) == 0o700)
    }

    // L3: files left with loose modes (by hand, by an old version) come back to 0600.
    @Test func existingLooseFilesAreTightened() async throws {
        let directory = try TemporaryDirectory()
        let store = try StorageSamples.store(directory)
        try await store.save(StorageSamples.minimal)
        try await store.withExclusiveAccess { () throws(VersolaError) in }
        chmod(directory.file("versola/team/session"), 0o644)
        chmod(directory.file("versola/team/lock"), 0o666)
        try await store.save(StorageSamples.full)
        try await store.withExclusiveAccess { () throws(VersolaError) in }
        #expect(permissions(directory.file("versola/team/session")) == 0o600)
        #expect(permissions(directory.file("versola/team/lock")) == 0o600)
    }

    // P5: a crash before the rename leaves a stray temp file; the old record still loads.
    @Test func strayTempFileDoesNotReplaceTheRecord() async throws {
        let directory = try TemporaryDirectory()
        let store = try StorageSamples.store(directory)
        try await store.save(StorageSamples.full)
        let stray = directory.file("versola/team/session.tmp-deadbeef0000")
        try Data("half a record".utf8).write(to: URL(fileURLWithPath: stray))
        #expect(try await store.load() == StorageSamples.full)
        try await store.save(StorageSamples.minimal)
        #expect(try await store.load() == StorageSamples.minimal)
        try await store.wipe()
        #expect(!FileManager.default.fileExists(atPath: stray))
        #expect(try await store.load() == nil)
    }

    @Test func saveLeavesNoTempFiles() async throws {
        let directory = try TemporaryDirectory()
        let store = try StorageSamples.store(directory)
        for _ in 0..<3 { try await store.save(StorageSamples.full) }
        #expect(PrivateFiles.names(in: directory.file("versola/team")).sorted() == ["generation", "session"])
    }

    // E9: tampering is credentialsInvalidated; the file is kept, then set aside on save.
    @Test func tamperedRecordIsInvalidatedAndKept() async throws {
        let directory = try TemporaryDirectory()
        let store = try StorageSamples.store(directory)
        try await store.save(StorageSamples.full)
        var bytes = try Data(contentsOf: store.recordFile)
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: store.recordFile)
        await expectError(.reauthenticate(.credentialsInvalidated)) { () throws(VersolaError) in try await store.load() }
        await expectError(.reauthenticate(.credentialsInvalidated)) { () throws(VersolaError) in try await store.load() }
        #expect(try Data(contentsOf: store.recordFile) == bytes)

        try await store.save(StorageSamples.minimal)
        #expect(try await store.load() == StorageSamples.minimal)
        let names = PrivateFiles.names(in: directory.file("versola/team"))
        let setAside = try #require(names.first { $0.hasPrefix("session.invalid-") })
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("versola/team/\(setAside)"))) == bytes)
    }

    // E9: a lost key (a new key file) reads as credentialsInvalidated; wipe keeps the old file aside.
    @Test func recordUnderAnotherKeyIsInvalidatedAndWipeSetsItAside() async throws {
        let directory = try TemporaryDirectory()
        try await StorageSamples.store(directory).save(StorageSamples.full)
        let rekeyed = try StorageSamples.store(directory, key: .generate())
        await expectError(.reauthenticate(.credentialsInvalidated)) { () throws(VersolaError) in
            try await rekeyed.load()
        }
        try await rekeyed.wipe()
        #expect(try await rekeyed.load() == nil)
        #expect(PrivateFiles.names(in: directory.file("versola/team")).contains { $0.hasPrefix("session.invalid-") })
    }

    @Test func damagedFilesAreErrorsNotCrashes() async throws {
        let directory = try TemporaryDirectory()
        let store = try StorageSamples.store(directory)
        try await store.save(StorageSamples.full)
        let good = try Data(contentsOf: store.recordFile)
        let damaged: [(String, Data)] = [
            ("empty", Data()),
            ("magic only", Data("VSR1".utf8)),
            ("truncated", good.prefix(good.count - 1)),
            ("truncated to half", good.prefix(good.count / 2)),
            ("garbage", Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) })),
            ("other magic", Data("VSR2".utf8) + good.dropFirst(4)),
            ("2 MiB", Data(repeating: 0x41, count: 2 << 20)),
        ]
        for (name, bytes) in damaged {
            try bytes.write(to: store.recordFile)
            do {
                _ = try await store.load()
                Issue.record("\(name) loaded")
            } catch {
                #expect(error == .reauthenticate(.credentialsInvalidated), "\(name)")
            }
        }
    }

    @Test func aSealedRecordThatIsNotARecordIsInvalidated() async throws {
        let directory = try TemporaryDirectory()
        let store = try StorageSamples.store(directory)
        try await store.save(StorageSamples.minimal)
        let aad = Array("versola session record v1 profile team".utf8)
        let sealed = try AESGCM.seal(Array("{\"version\":9}".utf8), key: StorageSamples.key, authenticating: aad)
        try Data(FileSessionStore.magic + sealed).write(to: store.recordFile)
        await expectError(.reauthenticate(.credentialsInvalidated)) { () throws(VersolaError) in try await store.load() }
    }

    // P8: another profile reads an empty store, and a record copied there does not open.
    @Test func profilesAreIsolated() async throws {
        let directory = try TemporaryDirectory()
        let work = try StorageSamples.store(directory, profile: "team")
        let home = try StorageSamples.store(directory, profile: "home")
        try await work.save(StorageSamples.full)
        #expect(try await home.load() == nil)
        try await home.save(StorageSamples.minimal)
        #expect(try await work.load() == StorageSamples.full)
        try FileManager.default.removeItem(at: home.recordFile)
        try FileManager.default.copyItem(at: work.recordFile, to: home.recordFile)
        await expectError(.reauthenticate(.credentialsInvalidated)) { () throws(VersolaError) in try await home.load() }
        try await work.wipe()
        #expect(try await work.load() == nil)
    }

    @Test(arguments: ["", ".", "..", "a/b", "../x", "x..y", "with space", "é", String(repeating: "a", count: 65)])
    func invalidProfileNamesAreRefused(name: String) async throws {
        let directory = try TemporaryDirectory()
        await expectInvalidConfiguration(containing: "profile names") { () throws(VersolaError) in
            try FileSessionStore(profile: name, directory: directory.url, keySource: FixedKeySource(key: .generate()))
        }
    }

    @Test(arguments: ["team", "a", "A.b_c-9", String(repeating: "z", count: 64)])
    func validProfileNamesAreAccepted(name: String) async throws {
        let directory = try TemporaryDirectory()
        let store = try StorageSamples.store(directory, profile: name)
        try await store.save(StorageSamples.minimal)
        #expect(try await store.load() == StorageSamples.minimal)
    }

    // S10: a locked key source is unlockRequired; nothing is written; wipe still works.
    @Test func lockedKeySource() async throws {
        let directory = try TemporaryDirectory()
        let source = SwitchableKeySource(locked: false)
        let store = try FileSessionStore(profile: "team", directory: directory.url, keySource: source)
        try await store.save(StorageSamples.full)
        source.setLocked(true)
        await expectError(.recoverable(.unlockRequired)) { () throws(VersolaError) in try await store.load() }
        await expectError(.recoverable(.unlockRequired)) { () throws(VersolaError) in
            try await store.save(StorageSamples.minimal)
        }
        source.setLocked(false)
        #expect(try await store.load() == StorageSamples.full)
        source.setLocked(true)
        try await store.wipe()
        #expect(try await store.load() == nil)
    }

    @Test("P10: file-system failures of the store are recoverable and name the path")
    func fileSystemFailuresNameThePath() async throws {
        let directory = try TemporaryDirectory()
        // A file where the state directory should be.
        let blocker = directory.file("state")
        try Data().write(to: URL(fileURLWithPath: blocker))
        let store = try FileSessionStore(
            profile: "team", directory: URL(fileURLWithPath: blocker), keySource: FixedKeySource(key: .generate()),
            onLockContention: {}, spillDirectory: directory.file("spill"))
        await expectStorageUnavailable(containing: blocker) { () throws(VersolaError) in
            try await store.save(StorageSamples.minimal)
        }
        // P9, P11: a plain save that fails leaves nothing anywhere…
        #expect(try await store.load() == nil)
        // …P10: a renewal that fails is spilled, and read back from there.
        await expectStorageUnavailable(containing: blocker) { () throws(VersolaError) in
            try await store.saveRenewal(StorageSamples.minimal)
        }
        #expect(try await store.load() == StorageSamples.minimal)
        store.spill?.remove()
        #expect(try await store.load() == nil)

        // A symbolic link in place of the record is refused, not followed.
        let linked = try StorageSamples.store(directory)
        try await linked.save(StorageSamples.minimal)
        try FileManager.default.removeItem(at: linked.recordFile)
        try FileManager.default.createSymbolicLink(atPath: linked.recordFile.path, withDestinationPath: "/etc/hostname")
        await expectStorageUnavailable(containing: linked.recordFile.path) { () throws(VersolaError) in
            try await linked.load()
        }
    }
}
