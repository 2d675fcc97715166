import Foundation

/// Moves the data key file from where earlier versions kept it, `$XDG_CONFIG_HOME/versola/key`
/// (a directory people often sync or commit with their dotfiles), to
/// `$XDG_STATE_HOME/versola/key`, once, the first time the key is needed.
///
/// At no moment are there two key files with different contents, and a crash at any step
/// leaves a key that opens the records:
/// - same file system: the old file is hard-linked to the new name (which fails rather than
///   replace a key already there), the new directory is synced, then the old name is removed.
///   A crash between the two leaves one file under two names.
/// - another file system (`link` fails with `EXDEV`, or the file system has no hard links):
///   the bytes are written to a 0600 temp file beside the new name, synced, linked into place,
///   read back, and only then is the old file removed. A crash leaves either the old file alone
///   or two files with the same 32 bytes.
/// The next run finds either state and finishes the move: an old file that is the same file as
/// the new one, or holds the same bytes, is removed.
///
/// When both exist with different contents, the new one wins and the old one is left where it
/// is, untouched and never read again. The new one is the key every record written since the
/// move is sealed with; an old file that differs can only have come from elsewhere (dotfiles
/// synced from another machine, a restored backup, an older versola run afterwards), so it is
/// not this machine's key, and deleting it could destroy the only copy of somebody's key.
///
/// The old file is checked as the key file always was: a regular file (no symbolic link), owned
/// by the user, readable by nobody else, 32 bytes. One that fails is refused with the fix,
/// never moved, so moving cannot hide that others could read it.
enum KeyFileMigration {
    /// How the old file is linked to its new name (`link(2)`; tests pass a stand-in that fails).
    typealias Linker = @Sendable (_ existing: String, _ new: String) -> Int32

    /// Finishes or performs the move of `old` to `new` (see the type's documentation).
    /// - Throws: ``FileSystemFailure`` or `VersolaError.configuration` for an old file that is
    ///   not a private, 32-byte regular file.
    static func move(from old: String, to new: String, linker: Linker = { link($0, $1) }) throws {
        var oldInfo = stat()
        guard lstat(old, &oldInfo) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return }
            throw FileSystemFailure("inspect", old)
        }
        let oldDirectory = (old as NSString).deletingLastPathComponent
        let newDirectory = (new as NSString).deletingLastPathComponent
        // XDG_CONFIG_HOME and XDG_STATE_HOME naming one directory (or one a link to the other):
        // the key is already where it belongs, and "removing the old one" would delete it.
        if old == new || sameDirectory(oldDirectory, newDirectory) { return }
        let oldBytes = try checkedKey(at: old, info: oldInfo)
        try PrivateFiles.ensureDirectory(newDirectory, privateDirectories: [newDirectory])
        if try settled(old, oldInfo: oldInfo, oldBytes: oldBytes, new: new, oldDirectory: oldDirectory) { return }
        if linker(old, new) == 0 {
            try PrivateFiles.syncDirectory(newDirectory)
        } else {
            let failure = errno
            switch failure {
            case EEXIST:
                // Another process moved or created it a moment ago.
                _ = try settled(old, oldInfo: oldInfo, oldBytes: oldBytes, new: new, oldDirectory: oldDirectory)
                return
            case EXDEV, EPERM, EOPNOTSUPP, EMLINK:
                if !(try PrivateFiles.createExclusively(oldBytes, at: new, in: newDirectory)) {
                    _ = try settled(old, oldInfo: oldInfo, oldBytes: oldBytes, new: new, oldDirectory: oldDirectory)
                    return
                }
                // Removing the old file is safe only once the copy reads back whole.
                guard case .contents(let copied) = try PrivateFiles.read(new, limit: 64), copied == oldBytes else {
                    throw FileSystemFailure("copy", new, code: EIO)
                }
            default:
                throw FileSystemFailure("move the key file to", new, code: failure)
            }
        }
        try PrivateFiles.remove(old)
        try PrivateFiles.syncDirectory(oldDirectory)
    }

    /// When `new` exists: removes `old` if it is the same key (same file, or same bytes) and
    /// returns true; leaves `old` alone and returns true if it differs (the new one wins).
    /// Returns false when there is no `new` yet.
    private static func settled(
        _ old: String, oldInfo: stat, oldBytes: [UInt8], new: String, oldDirectory: String
    ) throws -> Bool {
        var newInfo = stat()
        guard lstat(new, &newInfo) == 0 else {
            if errno == ENOENT { return false }
            throw FileSystemFailure("inspect", new)
        }
        let sameFile = newInfo.st_dev == oldInfo.st_dev && newInfo.st_ino == oldInfo.st_ino
        var sameBytes = false
        if !sameFile, newInfo.st_mode & S_IFMT == S_IFREG, case .contents(let bytes) = try PrivateFiles.read(new, limit: 64) {
            sameBytes = bytes == oldBytes
        }
        if sameFile || sameBytes {
            try PrivateFiles.remove(old)
            try PrivateFiles.syncDirectory(oldDirectory)
        }
        return true
    }

    /// Whether both paths name the same existing directory.
    private static func sameDirectory(_ first: String, _ second: String) -> Bool {
        var one = stat()
        var other = stat()
        guard stat(first, &one) == 0, stat(second, &other) == 0 else { return false }
        return one.st_dev == other.st_dev && one.st_ino == other.st_ino
    }

    /// The old key's bytes, after the checks the key file always had.
    private static func checkedKey(at path: String, info: stat) throws -> [UInt8] {
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw FileSystemFailure("read", path, code: info.st_mode & S_IFMT == S_IFLNK ? ELOOP : EINVAL)
        }
        try OwnedPath.check(info, path: path, what: "key file", access: .privateToOwner)
        guard case .contents(let bytes) = try PrivateFiles.read(path, limit: 64), bytes.count == 32 else {
            throw VersolaError.configuration(
                .invalidConfiguration("key file \(path) is not 32 bytes; it is damaged (records sealed with it are lost)"))
        }
        return bytes
    }
}
