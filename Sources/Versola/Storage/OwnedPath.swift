import VersolaHTTP
import Foundation

/// The one check that a file or directory Versola reads its settings or keys from belongs to
/// the user (L4): owned by the real user id, and not writable (or, for secrets, not even
/// readable) by the group or others. Anything else could have been planted or changed by
/// another local user, and a profile names a command `login` runs and a CA file it trusts.
///
/// ```swift
/// var info = stat()
/// fstat(descriptor, &info)
/// try OwnedPath.check(info, path: path, what: "profile file", access: .notWritableByOthers)
/// ```
package enum OwnedPath {
    /// What the group and others may do with the path.
    package enum Access: Sendable {
        /// They may read it but not write it (settings).
        case notWritableByOthers
        /// They may neither read nor write it (keys).
        case privateToOwner

        var forbiddenBits: mode_t {
            switch self {
            case .notWritableByOthers: 0o022
            case .privateToOwner: 0o077
            }
        }

        var wording: String {
            switch self {
            case .notWritableByOthers: "writable by other users"
            case .privateToOwner: "accessible to other users"
            }
        }
    }

    /// Refuses `info` (from `stat` of `path`) unless the user owns it and `access` holds.
    /// - Parameter what: names the path in the message (`profile file`, `key file`, `profile directory`).
    /// - Throws: `.configuration(.invalidConfiguration)` naming the path and the command that fixes it.
    package static func check(_ info: stat, path: String, what: String, access: Access) throws(VersolaError) {
        let isDirectory = info.st_mode & S_IFMT == S_IFDIR
        guard info.st_uid == getuid() else {
            throw .configuration(
                .invalidConfiguration(
                    "\(what) \(path) belongs to another user (uid \(info.st_uid)), who may have planted it;"
                        + " remove it, or make it yours with chown\(isDirectory ? " -R" : "") if you trust its content"))
        }
        guard info.st_mode & access.forbiddenBits == 0 else {
            let mode = isDirectory ? "700" : "600"
            throw .configuration(
                .invalidConfiguration("\(what) \(path) is \(access.wording); fix it with chmod \(mode) \(path)"))
        }
    }

    /// `stat` of `path` (following links) and ``check(_:path:what:access:)``; a missing path
    /// is fine (nil).
    @discardableResult
    package static func checkIfPresent(_ path: String, what: String, access: Access) throws(VersolaError) -> stat? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw FileSystemFailure("inspect", path).versolaError
        }
        try check(info, path: path, what: what, access: access)
        return info
    }
}
