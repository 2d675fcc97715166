import Foundation
import Testing
import VersolaCrypto

@testable import Versola
import VersolaHTTP
import VersolaTesting

/// A record the profile's file system refused is spilled to another file system and taken up
/// by the next reader (P10 across processes).
@Suite struct SpillFileTests {
    /// A store whose record directory can be made unwritable, spilling into `spill`.
    static func store(_ directory: TemporaryDirectory, spill: String, key: SymmetricKey = StorageSamples.key) throws
        -> FileSessionStore
    {
        try FileSessionStore(
            profile: "team", directory: directory.url, keySource: FixedKeySource(key: key), onLockContention: {},
            spillDirectory: spill)
    }

    /// Makes the profile directory refuse new files (as a full disk refuses the temp file).
    static func refuseWrites(_ store: FileSessionStore, _ refuse: Bool) {
        chmod(store.profileDirectory.path, refuse ? 0o500 : 0o700)
    }

    static var rotated: SessionRecord {
        var record = StorageSamples.minimal
        record.refreshToken = "rotated-SECRET"
        return record
    }

    @Test("P10: a refused renewal is spilled, user-only; a reader takes it up, and under the lock writes it through")
    func spilledRecordIsTakenUpAndWrittenThrough() async throws {
        // Root ignores directory modes: the refusal needs another user's rules, so this runs as anyone but root.
        guard getuid() != 0 else { return try await spilledAsRoot() }
        let directory = try TemporaryDirectory()
        let spill = directory.file("run/versola/spill")
        let store = try Self.store(directory, spill: spill)
        try await store.save(StorageSamples.minimal)
        Self.refuseWrites(store, true)
        defer { Self.refuseWrites(store, false) }
        await #expect(throws: VersolaError.self) { try await store.saveRenewal(Self.rotated) }
        try await Self.checkSpilled(store, spill: spill)
    }

    /// As root, a file in place of the profile directory refuses the write instead.
    private func spilledAsRoot() async throws {
        let directory = try TemporaryDirectory()
        let spill = directory.file("run/versola/spill")
        let store = try Self.store(directory, spill: spill)
        try await store.save(StorageSamples.minimal)
        try FileManager.default.removeItem(at: store.recordFile)
        try FileManager.default.createDirectory(at: store.recordFile, withIntermediateDirectories: false)
        await #expect(throws: VersolaError.self) { try await store.saveRenewal(Self.rotated) }
        try FileManager.default.removeItem(at: store.recordFile)
        try await Self.checkSpilled(store, spill: spill)
    }

    static func checkSpilled(_ store: FileSessionStore, spill: String) async throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: spill)
        #expect(names.count == 1)
        let file = spill + "/" + (names.first ?? "")
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)).range(of: Data("rotated-SECRET".utf8)) == nil, "sealed")
        // Any reader (another process: another store object) sees the rotated token.
        let reader = try FileSessionStore(
            profile: "team", directory: store.profileDirectory.deletingLastPathComponent().deletingLastPathComponent(),
            keySource: store.keySource, onLockContention: {}, spillDirectory: spill)
        #expect(try await reader.load()?.refreshToken == "rotated-SECRET")
        #expect(FileManager.default.fileExists(atPath: file), "a reader without the lock leaves it")
        // Under the lock, the reader writes it through and the spill goes.
        let written = try await reader.withExclusiveAccess { () throws(VersolaError) in try await reader.load() }
        #expect(written?.refreshToken == "rotated-SECRET")
        #expect(!FileManager.default.fileExists(atPath: file))
        let onDisk = try await store.load()
        #expect(onDisk?.refreshToken == "rotated-SECRET")
    }

    @Test("P10 S12: a spill is stale once another write follows, and a wipe removes it")
    func staleSpillIsDropped() async throws {
        let (store, spill, generation, _, directory) = try await Self.signedInStore()
        defer { withExtendedLifetime(directory) {} }
        // A spill left for the generation now current…
        try spill.write(sealed: try await Self.sealed(Self.rotated, by: store), following: generation)
        #expect(try await store.load()?.refreshToken == "rotated-SECRET")
        // …is stale after another process's write (a new sign-in), and removed.
        try spill.write(sealed: try await Self.sealed(Self.rotated, by: store), following: generation &- 1)
        #expect(try await store.load()?.refreshToken == StorageSamples.minimal.refreshToken)
        #expect(spill.read() == nil)
        // A logout's wipe removes a current one too.
        try spill.write(sealed: try await Self.sealed(Self.rotated, by: store), following: generation)
        try await store.wipe()
        #expect(spill.read() == nil)
        #expect(try await store.load() == nil)
    }

    @Test("P10 L4: a spill that another key sealed, or that is not user-only, is never taken")
    func foreignSpillIsIgnored() async throws {
        let (store, spill, generation, spillDirectory, directory) = try await Self.signedInStore()
        defer { withExtendedLifetime(directory) {} }
        let other = try Self.store(try TemporaryDirectory(), spill: spillDirectory, key: .generate())
        try spill.write(sealed: try await Self.sealed(Self.rotated, by: other), following: generation)
        #expect(try await store.load()?.refreshToken == StorageSamples.minimal.refreshToken)
        try spill.write(sealed: try await Self.sealed(Self.rotated, by: store), following: generation)
        chmod(spill.path, 0o644)
        #expect(try await store.load()?.refreshToken == StorageSamples.minimal.refreshToken)
    }

    /// A store holding a record, its spill file (none written yet), the generation the record
    /// made, the spill directory, and the temporary directory under both (removed when released).
    static func signedInStore() async throws -> (FileSessionStore, SpillFile, UInt64, String, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let spillDirectory = directory.file("run/versola/spill")
        let store = try Self.store(directory, spill: spillDirectory)
        try await store.save(StorageSamples.minimal)
        let spill = try #require(store.spill)
        return (store, spill, ProfileWatcher.readGeneration(store.directory.generationPath), spillDirectory, directory)
    }

    /// The record sealed as `store` seals it: saved by a store of the same profile and key
    /// elsewhere, and read back from its file.
    static func sealed(_ record: SessionRecord, by store: FileSessionStore) async throws -> [UInt8] {
        let scratch = try TemporaryDirectory()
        let copy = try FileSessionStore(
            profile: store.profile, directory: scratch.url, keySource: store.keySource, onLockContention: {},
            spillDirectory: scratch.file("spill"))
        try await copy.save(record)
        return Array(try Data(contentsOf: copy.recordFile))
    }
}
