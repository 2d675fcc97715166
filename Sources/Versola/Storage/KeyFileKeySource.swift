import VersolaHTTP
import Foundation
import VersolaCrypto

/// The default ``KeySource``: 32 random bytes in a file only the user can read,
/// `$XDG_STATE_HOME/versola/key` (`~/.local/state/versola/key`).
///
/// The file is created on first use, mode 0600 in a 0700 directory (L3). Creation is atomic
/// and exclusive: the bytes go to a temp file that is then hard-linked into place, so two
/// processes racing to create it end up with the same key, and nobody reads half a key.
/// A key file that the group or others can read or write, or that another user owns, is
/// refused with `invalidConfiguration` naming the path and the fix (`chmod 600 <path>`).
///
/// Earlier versions kept the key in `$XDG_CONFIG_HOME/versola/key`, a directory often synced
/// or committed with dotfiles. Given that former place, the source moves a key file found
/// there on first use, once, so records sealed with it still open: by a hard link and then
/// removing the old name on one file system; by a synced copy, read back before the old file
/// goes, across file systems. A crash at any step leaves a usable key, and the next use finishes
/// the move. When both files exist and differ, the state home's wins (it sealed everything
/// written since the move) and the old one is left untouched.
///
/// It protects against other users and against copies of the state directory alone; a
/// process running as the user can read the key. Pick ``PassphraseKeySource`` or
/// ``SecretServiceKeySource`` for more.
public struct KeyFileKeySource: KeySource {
    /// The key file.
    public let keyFile: URL
    /// Where earlier versions kept the key file; a file there is moved to ``keyFile``.
    public let formerKeyFile: URL?

    /// Uses `<state home>/versola/key`, moving a key file from `<config home>/versola/key`.
    public init(directories: XDGDirectories) {
        self.init(stateHome: directories.stateHome, formerConfigHome: directories.configHome)
    }

    /// Uses `<stateHome>/versola/key`; with `formerConfigHome`, a key file left in
    /// `<formerConfigHome>/versola/key` by an earlier version is moved there first.
    public init(stateHome: URL, formerConfigHome: URL? = nil) {
        keyFile = Self.file(under: stateHome)
        formerKeyFile = formerConfigHome.map(Self.file(under:))
    }

    private static func file(under home: URL) -> URL {
        var base = home.path
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        return URL(fileURLWithPath: (base == "/" ? "" : base) + "/versola/key")
    }

    /// The key, created on first use.
    /// - Throws: `.configuration(.invalidConfiguration)` for a key file others can read, one
    ///   of the wrong size, or one that cannot be read, moved or created.
    public func dataKey() async throws(VersolaError) -> SymmetricKey {
        let path = keyFile.path
        let directory = keyFile.deletingLastPathComponent().path
        do {
            if let formerKeyFile { try KeyFileMigration.move(from: formerKeyFile.path, to: path) }
            if let key = try readKey(path) { return key }
            try PrivateFiles.ensureDirectory(directory, privateDirectories: [directory])
            _ = try PrivateFiles.createExclusively(SecureRandom.bytes(32), at: path, in: directory)
            // Whoever won the race, the file now holds the one key everybody uses.
            if let key = try readKey(path) { return key }
            throw FileSystemFailure("read", path, code: ENOENT).versolaError
        } catch let failure as FileSystemFailure {
            throw failure.versolaError
        } catch let error as VersolaError {
            throw error
        } catch {
            throw .configuration(.invalidConfiguration("cannot use key file \(path)"))
        }
    }

    /// The key in `path`, nil when there is no file.
    private func readKey(_ path: String) throws -> SymmetricKey? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw FileSystemFailure("read", path)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FileSystemFailure("read", path) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw FileSystemFailure("read", path, code: EINVAL) }
        try OwnedPath.check(info, path: path, what: "key file", access: .privateToOwner)
        var bytes = [UInt8](repeating: 0, count: 33)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw FileSystemFailure("read", path) }
        guard count == 32, let key = try? SymmetricKey(bytes: Array(bytes[0..<32])) else {
            throw VersolaError.configuration(
                .invalidConfiguration("key file \(path) is not 32 bytes; it is damaged (records sealed with it are lost)"))
        }
        return key
    }
}
