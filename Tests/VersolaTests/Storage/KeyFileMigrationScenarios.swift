import Foundation
import Testing
import VersolaCrypto

@testable import Versola
import VersolaTesting

/// The key file moves from `$XDG_CONFIG_HOME/versola/key` (where earlier versions kept it, a
/// directory often synced with dotfiles) to `$XDG_STATE_HOME/versola/key`, once, and the
/// records sealed with it still open: every state a crash can leave is finished on the next run.
@Suite("key file migration")
struct KeyFileMigrationScenarios {
    /// A config and a state home in one temporary directory.
    struct Homes {
        let root = try! TemporaryDirectory()
        var config: URL { root.url.appendingPathComponent("config") }
        var state: URL { root.url.appendingPathComponent("state") }
        var oldKey: String { root.file("config/versola/key") }
        var newKey: String { root.file("state/versola/key") }
        var directories: XDGDirectories { XDGDirectories(stateHome: state, configHome: config) }

        /// What an earlier version left: its key file in the config home, and a record sealed with it.
        func earlierVersionSignedIn() async throws -> SymmetricKey {
            let earlier = KeyFileKeySource(stateHome: config)  // the earlier place: <config>/versola/key
            let store = try FileSessionStore(profile: "team", directory: state, keySource: earlier)
            try await store.save(StorageSamples.full)
            #expect(earlier.keyFile.path == oldKey)
            return try await earlier.dataKey()
        }

        func store() throws -> FileSessionStore {
            try FileSessionStore(profile: "team", directory: state, keySource: KeyFileKeySource(directories: directories))
        }
    }

    static func inode(_ path: String) -> ino_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_ino : nil
    }

    static func bytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map(Array.init)
    }

    @Test("L3 P5: a key file left in the config home moves to the state home on first use; the record still opens")
    func movesOnFirstUse() async throws {
        let homes = Homes()
        let key = try await homes.earlierVersionSignedIn()
        let oldInode = Self.inode(homes.oldKey)
        #expect(try await homes.store().load() == StorageSamples.full)
        #expect(!FileManager.default.fileExists(atPath: homes.oldKey))
        // Moved, not copied: the same file under its new name, user-only in a user-only directory.
        #expect(Self.inode(homes.newKey) == oldInode)
        #expect(permissions(homes.newKey) == 0o600)
        #expect(permissions(homes.root.file("state/versola")) == 0o700)
        #expect(Self.bytes(homes.newKey) == key.bytes)
        // Once: later runs read the new place only.
        #expect(try await homes.store().load() == StorageSamples.full)
    }

    @Test("L3 P5: across file systems the key is copied, synced, read back, and only then removed from the old place")
    func copiesAcrossFileSystems() async throws {
        let homes = Homes()
        let key = try await homes.earlierVersionSignedIn()
        try KeyFileMigration.move(from: homes.oldKey, to: homes.newKey) { _, _ in
            errno = EXDEV
            return -1
        }
        #expect(!FileManager.default.fileExists(atPath: homes.oldKey))
        #expect(Self.bytes(homes.newKey) == key.bytes)
        #expect(permissions(homes.newKey) == 0o600)
        #expect(PrivateFiles.names(in: homes.root.file("state/versola")).sorted() == ["key", "team"])
        #expect(try await homes.store().load() == StorageSamples.full)
    }

    @Test(
        "L3 P5: a config home on another real file system (/dev/shm) moves its key by copying",
        .enabled(if: Self.shmIsAnotherFileSystem))
    func realCrossDeviceMove() async throws {
        let state = try TemporaryDirectory()
        let config = "/dev/shm/versola-migration-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: config) }
        let earlier = KeyFileKeySource(stateHome: URL(fileURLWithPath: config))
        let key = try await earlier.dataKey()
        let moved = KeyFileKeySource(stateHome: state.url, formerConfigHome: URL(fileURLWithPath: config))
        #expect(try await moved.dataKey() == key)
        #expect(!FileManager.default.fileExists(atPath: config + "/versola/key"))
        #expect(permissions(state.file("versola/key")) == 0o600)
    }

    static var shmIsAnotherFileSystem: Bool {
        var shm = stat()
        var temporary = stat()
        return stat("/dev/shm", &shm) == 0 && stat(FileManager.default.temporaryDirectory.path, &temporary) == 0
            && shm.st_dev != temporary.st_dev && access("/dev/shm", W_OK) == 0
    }

    @Test("L3 P5: a crash after the link (one file under both names) is finished on the next run")
    func crashAfterLink() async throws {
        let homes = Homes()
        let key = try await homes.earlierVersionSignedIn()
        try PrivateFiles.ensureDirectory(homes.root.file("state/versola"), privateDirectories: [])
        #expect(link(homes.oldKey, homes.newKey) == 0)
        #expect(try await homes.store().load() == StorageSamples.full)
        #expect(!FileManager.default.fileExists(atPath: homes.oldKey))
        #expect(Self.bytes(homes.newKey) == key.bytes)
    }

    @Test("L3 P5: a crash after the copy (two files, the same bytes) or during it (a stray temp file) is finished on the next run")
    func crashDuringOrAfterCopy() async throws {
        let homes = Homes()
        let key = try await homes.earlierVersionSignedIn()
        let directory = homes.root.file("state/versola")
        try PrivateFiles.ensureDirectory(directory, privateDirectories: [])
        #expect(try PrivateFiles.createExclusively(key.bytes, at: homes.newKey, in: directory))
        try PrivateFiles.writeAtomically(Array(key.bytes[0..<7]), to: directory + "/key.tmp-left", in: directory)
        #expect(try await homes.store().load() == StorageSamples.full)
        #expect(!FileManager.default.fileExists(atPath: homes.oldKey))
        #expect(Self.bytes(homes.newKey) == key.bytes)
    }

    /// Both exist and differ: the state home's key is the one this version wrote and sealed its
    /// records with; a different file in the config home came from elsewhere (dotfiles synced
    /// from another machine, a restored backup, an older versola) and is left untouched, never
    /// read, never deleted (it may be someone's only copy).
    @Test("L3 P5: when both exist and differ, the state home's key wins and the config home's file is left untouched")
    func bothExistTheNewOneWins() async throws {
        let homes = Homes()
        let current = KeyFileKeySource(directories: homes.directories)
        let store = try homes.store()
        try await store.save(StorageSamples.full)
        let newKey = Self.bytes(homes.newKey)
        let foreign = SymmetricKey.generate().bytes
        try PrivateFiles.ensureDirectory(homes.root.file("config/versola"), privateDirectories: [])
        #expect(try PrivateFiles.createExclusively(foreign, at: homes.oldKey, in: homes.root.file("config/versola")))
        #expect(try await current.dataKey().bytes == newKey)
        #expect(try await store.load() == StorageSamples.full)
        #expect(Self.bytes(homes.oldKey) == foreign)
        #expect(Self.bytes(homes.newKey) == newKey)
    }

    @Test("L4: an old key file others can read is refused with the fix, and not moved")
    func refusesAnExposedOldKey() async throws {
        let homes = Homes()
        _ = try await homes.earlierVersionSignedIn()
        chmod(homes.oldKey, 0o644)
        await expectInvalidConfiguration(containing: "chmod 600 \(homes.oldKey)") { () throws(VersolaError) in
            try await KeyFileKeySource(directories: homes.directories).dataKey()
        }
        #expect(FileManager.default.fileExists(atPath: homes.oldKey))
        #expect(!FileManager.default.fileExists(atPath: homes.newKey))
    }

    @Test func refusesAnOldKeyThatIsASymbolicLink() async throws {
        let homes = Homes()
        _ = try await homes.earlierVersionSignedIn()
        let elsewhere = homes.root.file("elsewhere")
        #expect(rename(homes.oldKey, elsewhere) == 0)
        #expect(symlink(elsewhere, homes.oldKey) == 0)
        await expectInvalidConfiguration(containing: homes.oldKey) { () throws(VersolaError) in
            try await KeyFileKeySource(directories: homes.directories).dataKey()
        }
        #expect(!FileManager.default.fileExists(atPath: homes.newKey))
    }

    @Test func oneDirectoryForBothHomesKeepsTheKey() async throws {
        let root = try TemporaryDirectory()
        let source = KeyFileKeySource(stateHome: root.url, formerConfigHome: root.url)
        let key = try await source.dataKey()
        #expect(try await source.dataKey() == key)
        #expect(Self.bytes(root.file("versola/key")) == key.bytes)
        // A state home that is a link to the config home is the same directory too.
        let linked = root.file("state-link")
        #expect(symlink(root.path, linked) == 0)
        let throughLink = KeyFileKeySource(stateHome: URL(fileURLWithPath: linked), formerConfigHome: root.url)
        #expect(try await throughLink.dataKey() == key)
        #expect(Self.bytes(root.file("versola/key")) == key.bytes)
    }

    @Test func racingMigratorsAgreeOnOneKey() async throws {
        let homes = Homes()
        let key = try await homes.earlierVersionSignedIn()
        let directories = homes.directories
        let keys = try await withThrowingTaskGroup(of: SymmetricKey.self) { group in
            for _ in 0..<8 { group.addTask { try await KeyFileKeySource(directories: directories).dataKey() } }
            return try await group.reduce(into: Set<SymmetricKey>()) { $0.insert($1) }
        }
        #expect(keys == [key])
        #expect(!FileManager.default.fileExists(atPath: homes.oldKey))
    }

    @Test func theKeyFileNameIsNoProfileName() async throws {
        await expectInvalidConfiguration(containing: "'key' cannot be a profile name") { () throws(VersolaError) in
            try FileSessionStore(profile: "key", directory: URL(fileURLWithPath: "/tmp"), keySource: FixedKeySource(key: StorageSamples.key))
        }
    }
}
