import Foundation
import Versola

/// Which version of a profile's file the agent last read: what `stat` says of the file and of
/// the two folders above it (their owner and mode are part of what makes it readable, L4).
/// A file replaced, rewritten or changed in mode is another generation; so is one that is
/// gone. Comparing two costs three `stat` calls, not a read and a parse.
struct ProfileGeneration: Sendable, Hashable {
    private struct Stamp: Sendable, Hashable {
        var device: UInt64
        var inode: UInt64
        var mode: UInt32
        var owner: UInt32
        var size: Int64
        var modified: Int
        var modifiedNanoseconds: Int
        var changed: Int
        var changedNanoseconds: Int

        init?(_ path: String) {
            var info = stat()
            guard lstat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            mode = UInt32(info.st_mode)
            owner = UInt32(info.st_uid)
            size = Int64(info.st_size)
            modified = info.st_mtim.tv_sec
            modifiedNanoseconds = info.st_mtim.tv_nsec
            changed = info.st_ctim.tv_sec
            changedNanoseconds = info.st_ctim.tv_nsec
        }
    }

    private let application: Stamp
    private let folder: Stamp
    private let file: Stamp

    /// The generation of `profile` under `directories` now; nil when its file cannot be looked at.
    init?(_ directories: XDGDirectories, profile: String) {
        let files = ProfileFiles(configHome: directories.configHome.path)
        guard let path = try? files.path(of: profile), let application = Stamp(files.applicationDirectory),
            let folder = Stamp(files.directory), let file = Stamp(path)
        else { return nil }
        self.application = application
        self.folder = folder
        self.file = file
    }
}
