import VersolaHTTP
import Foundation
import VersolaCrypto

/// Where a sealed record goes when its profile's file system refuses it (P10 across processes):
/// a user-only file on another file system, memory-backed on a desktop
/// (`$XDG_RUNTIME_DIR/versola/spill`, else `/dev/shm/versola-<uid>`), one per record path.
///
/// A process that renewed a session and cannot store it may end before the disk has room again
/// (the agent's refresh process, a `--no-agent` command, an embedding app that exits). Its
/// record, holding a refresh token the provider has already rotated, is then kept here, beside
/// the profile generation it was meant to follow; the next reader of the profile takes it up
/// while that generation is still current, and the next write of the profile replaces it.
///
/// The file holds a magic, the generation (8 bytes, big-endian) and the record sealed exactly
/// as the record file is (same key, same binding to the profile): it is as private as the record.
struct SpillFile: Sendable {
    static let magic: [UInt8] = Array("VSP1".utf8)

    /// The spill file's path.
    let path: String
    /// Its directory, created 0700 and required to be the user's own.
    let directory: String

    /// The spill file for the record at `recordPath`, in `directory` (the spill directory of
    /// ``current(environment:)`` when nil); nil when there is no such directory to use.
    init?(recordPath: String, directory: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let directory = directory ?? Self.defaultDirectory(environment: environment) else { return nil }
        let digest = SHA256.hash(Array(recordPath.utf8)).prefix(16)
        self.directory = directory
        self.path = directory + "/" + digest.map { String(format: "%02x", $0) }.joined() + ".record"
    }

    /// `$XDG_RUNTIME_DIR/versola/spill` when that variable names an absolute directory, else
    /// `/dev/shm/versola-<uid>/spill` where `/dev/shm` exists.
    static func defaultDirectory(environment: [String: String]) -> String? {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/versola/spill" }
        var info = stat()
        guard stat("/dev/shm", &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        return "/dev/shm/versola-\(getuid())/spill"
    }

    /// Writes `sealed` as the record that follows `generation`, replacing any earlier spill.
    func write(sealed: [UInt8], following generation: UInt64) throws(FileSystemFailure) {
        let parent = (directory as NSString).deletingLastPathComponent
        try PrivateFiles.ensureDirectory(directory, privateDirectories: [parent, directory])
        try Self.requireOwn(parent)
        try Self.requireOwn(directory)
        var bytes = Self.magic
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: generation >> UInt64(shift))) }
        try PrivateFiles.writeAtomically(bytes + sealed, to: path, in: directory)
    }

    /// The spilled record's generation and sealed bytes, nil when there is none (or it is not
    /// the user's own, or not a spill file: such a file is never trusted).
    func read() -> (generation: UInt64, sealed: [UInt8])? {
        guard (try? Self.requireOwn(directory)) != nil,
            case .contents(let bytes)? = try? PrivateFiles.read(path, limit: FileSessionStore.maximumRecordSize + 64),
            bytes.count > Self.magic.count + 8, Array(bytes.prefix(Self.magic.count)) == Self.magic
        else { return nil }
        var owner = stat()
        guard lstat(path, &owner) == 0, owner.st_uid == getuid(), owner.st_mode & 0o077 == 0 else { return nil }
        let generation = bytes[Self.magic.count..<Self.magic.count + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return (generation, Array(bytes[(Self.magic.count + 8)...]))
    }

    /// Removes the spill file, when there is one.
    func remove() {
        try? PrivateFiles.remove(path)
    }

    /// Refuses a directory that is not the user's own or that others may enter (L4).
    private static func requireOwn(_ path: String) throws(FileSystemFailure) {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw FileSystemFailure("inspect", path) }
        guard info.st_uid == getuid(), info.st_mode & 0o077 == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw FileSystemFailure("use directory", path, code: EACCES)
        }
    }
}
