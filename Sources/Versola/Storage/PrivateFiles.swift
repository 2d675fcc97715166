import VersolaHTTP
import Foundation

/// The few file operations the store needs, done with POSIX calls so that modes, `fsync`
/// and `rename` are exactly what L3 and P5 ask for: directories 0700 and files 0600 set
/// explicitly (whatever the umask), writes that replace a file atomically and durably.
package enum PrivateFiles {
    /// Mode of every directory Versola creates.
    static let directoryMode: mode_t = 0o700
    /// Mode of every file Versola creates.
    static let fileMode: mode_t = 0o600

    /// What reading found.
    enum ReadResult: Equatable {
        /// No such file (or no such directory on the way).
        case missing
        /// The file's bytes.
        case contents([UInt8])
        /// The file is larger than the cap; it was not read.
        case tooLarge
    }

    /// Makes `path` and its missing parents, each created with mode 0700 exactly whatever
    /// the umask (L4); the directories named in `privateDirectories` (which must be `path` or
    /// its ancestors) get mode 0700 even when they already exist.
    package static func ensureDirectory(_ path: String, privateDirectories: [String]) throws(FileSystemFailure) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, directoryMode) == 0 {
                // mkdir applies the umask: a umask such as 0277 would leave the new directory unusable.
                if chmod(prefix, directoryMode) != 0 { throw FileSystemFailure("chmod 700", prefix) }
            } else if errno != EEXIST {
                throw FileSystemFailure("create directory", prefix)
            }
        }
        for directory in privateDirectories {
            var info = stat()
            guard lstat(directory, &info) == 0 else { throw FileSystemFailure("inspect", directory) }
            guard info.st_mode & S_IFMT == S_IFDIR else { throw FileSystemFailure("use directory", directory, code: ENOTDIR) }
            if info.st_mode & 0o777 != directoryMode, chmod(directory, directoryMode) != 0 {
                throw FileSystemFailure("chmod 700", directory)
            }
        }
    }

    /// Reads a regular file of at most `limit` bytes. Symbolic links, FIFOs and devices are
    /// refused (`ELOOP`, `EINVAL`) rather than followed or blocked on.
    static func read(_ path: String, limit: Int) throws(FileSystemFailure) -> ReadResult {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        if descriptor < 0 {
            if errno == ENOENT || errno == ENOTDIR { return .missing }
            throw FileSystemFailure("read", path)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FileSystemFailure("read", path) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw FileSystemFailure("read", path, code: EINVAL) }
        if info.st_size > limit { return .tooLarge }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw FileSystemFailure("read", path)
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            // The file grew after fstat: still never read more than the cap.
            if bytes.count > limit { return .tooLarge }
        }
        return .contents(bytes)
    }

    /// Replaces `path` with `bytes` atomically (P5): a temp file in the same directory, mode
    /// 0600, written, `fsync`ed, renamed over `path`, then the directory `fsync`ed. A crash
    /// at any point leaves either the old file or the new one, never a mix.
    static func writeAtomically(_ bytes: [UInt8], to path: String, in directory: String) throws(FileSystemFailure) {
        let temporary = try writeTemporary(bytes, beside: path)
        guard rename(temporary, path) == 0 else {
            let failure = FileSystemFailure("rename", temporary)
            unlink(temporary)
            throw failure
        }
        try syncDirectory(directory)
    }

    /// Creates `path` with `bytes` only when no file of that name exists, atomically: the
    /// content is written to a temp file first and then hard-linked into place, so nobody ever
    /// sees a partial file. Returns false when `path` already existed (someone else won).
    static func createExclusively(_ bytes: [UInt8], at path: String, in directory: String) throws(FileSystemFailure)
        -> Bool
    {
        let temporary = try writeTemporary(bytes, beside: path)
        defer { unlink(temporary) }
        if link(temporary, path) != 0 {
            if errno == EEXIST { return false }
            throw FileSystemFailure("create", path)
        }
        try syncDirectory(directory)
        return true
    }

    /// Removes `path`; a missing file is fine.
    static func remove(_ path: String) throws(FileSystemFailure) {
        if unlink(path) != 0 && errno != ENOENT { throw FileSystemFailure("remove", path) }
    }

    /// Renames `path` to `newPath`.
    static func move(_ path: String, to newPath: String) throws(FileSystemFailure) {
        guard rename(path, newPath) == 0 else { throw FileSystemFailure("rename", path) }
    }

    /// The names in `directory` (without `.` and `..`); empty when it does not exist.
    static func names(in directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }

    /// Makes a rename or unlink in `directory` durable.
    static func syncDirectory(_ directory: String) throws(FileSystemFailure) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileSystemFailure("sync", directory) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw FileSystemFailure("sync", directory) }
    }

    /// Writes `bytes` to a new file named after `path` with a random suffix, mode 0600
    /// exactly (whatever the umask), `fsync`ed and closed. Returns its path; removes it on failure.
    private static func writeTemporary(_ bytes: [UInt8], beside path: String) throws(FileSystemFailure) -> String {
        let temporary = "\(path).tmp-\(randomSuffix())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, fileMode)
        guard descriptor >= 0 else { throw FileSystemFailure("write", temporary) }
        var failure: FileSystemFailure?
        if fchmod(descriptor, fileMode) != 0 {
            failure = FileSystemFailure("chmod 600", temporary)
        } else {
            do {
                try writeAll(bytes, to: descriptor, path: temporary)
                if fsync(descriptor) != 0 { failure = FileSystemFailure("sync", temporary) }
            } catch {
                failure = error
            }
        }
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw failure
        }
        return temporary
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(FileSystemFailure) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw FileSystemFailure("write", path)
            }
            offset += written
        }
    }

    private static func randomSuffix() -> String {
        SystemRandomSource().bytes(6).map { String(format: "%02x", $0) }.joined()
    }
}
