import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// The saved profiles: `$XDG_CONFIG_HOME/versola/profiles/<name>.json`, files 0600 in
/// directories 0700 (L3, whatever the umask), replaced atomically; read only when the user
/// owns them and nobody else can write them (L4).
public struct ProfileFiles: Sendable, Hashable {
    /// `<config home>/versola/profiles`.
    public let directory: String

    /// Profiles under `configHome`.
    public init(configHome: String) {
        var base = configHome
        while base.count > 1, base.hasSuffix("/") { base.removeLast() }
        directory = base + "/versola/profiles"
    }

    /// The file of `profile`.
    /// - Throws: `.configuration(.invalidConfiguration)` for a name that is not 1–64 of
    ///   `[A-Za-z0-9._-]` (never `.` nor containing `..`).
    public func path(of profile: String) throws(VersolaError) -> String {
        try Self.validate(profile)
        return directory + "/" + profile + ".json"
    }

    /// The saved settings, or nil when the profile was never saved.
    ///
    /// A profile names a command `login` runs and a CA file it trusts, so it is read only from
    /// what the user owns (L4): the file and the `versola` and `profiles` directories must
    /// belong to the user and not be writable by the group or others.
    /// - Throws: `.configuration(.invalidConfiguration)` for an unreadable or invalid file, or
    ///   one (or a directory above it) that fails that check, naming the fix.
    public func load(_ profile: String) throws(VersolaError) -> ProfileSettings? {
        try read(at: try path(of: profile))
    }

    /// The settings in the file at `path` (in this directory), or nil when there is none;
    /// checked as ``load(_:)`` says.
    func read(at path: String) throws(VersolaError) -> ProfileSettings? {
        try readJSON(at: path).map { value throws(VersolaError) in try ProfileSettings(json: value) }
    }

    /// The JSON value in the file at `path` (in this directory, or with `beside` in the
    /// `versola` directory above it, such as the target table), or nil when there is none;
    /// checked as ``load(_:)`` says.
    func readJSON(at path: String, beside: Bool = false) throws(VersolaError) -> JSONValue? {
        for folder in beside ? [applicationDirectory] : [applicationDirectory, directory] {
            guard try OwnedPath.checkIfPresent(folder, what: "profile directory", access: .notWritableByOthers) != nil
            else { return nil }
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw .configuration(.invalidConfiguration("cannot read \(path): \(String(cString: strerror(errno)))"))
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw .configuration(.invalidConfiguration("cannot read \(path): not a regular file"))
        }
        try OwnedPath.check(info, path: path, what: "profile file", access: .notWritableByOthers)
        guard info.st_size <= Self.maximumFileSize,
            let data = try? handle.read(upToCount: Self.maximumFileSize + 1), data.count <= Self.maximumFileSize
        else {
            throw .configuration(.invalidConfiguration("cannot read \(path): larger than \(Self.maximumFileSize) bytes"))
        }
        let value: JSONValue
        do { value = try JSONValue(parsing: Array(data)) } catch {
            throw .configuration(.invalidConfiguration("\(path) is not valid JSON"))
        }
        return value
    }

    /// The largest profile file read: 64 KiB.
    static let maximumFileSize = 64 << 10

    /// `<config home>/versola`.
    var applicationDirectory: String { String(directory.dropLast("/profiles".count)) }

    /// The settings of `profile`, which must have been saved by `versola login`.
    /// - Throws: `.configuration(.invalidConfiguration)` saying how to create it.
    public func require(_ profile: String) throws(VersolaError) -> ProfileSettings {
        guard let settings = try load(profile) else {
            throw .configuration(
                .invalidConfiguration(
                    "no profile '\(profile)': run versola login --issuer URL --client-id ID"
                        + (profile == "default" ? "" : " --profile \(profile)")))
        }
        return settings
    }

    /// Saves `settings` as `profile`.
    /// - Throws: `.configuration(.invalidConfiguration)` when the file cannot be written.
    public func save(_ settings: ProfileSettings, as profile: String) throws(VersolaError) {
        try write(settings, to: try path(of: profile))
    }

    /// Writes `settings` to the file at `path` (in this directory) atomically, making the
    /// directories as needed.
    func write(_ settings: ProfileSettings, to path: String) throws(VersolaError) {
        try write(json: settings.json, to: path)
    }

    /// Writes `value` to the file at `path` (in or beside this directory) atomically, user-only.
    func write(json value: JSONValue, to path: String) throws(VersolaError) {
        // Never write into (nor tighten) a directory someone else owns (L4).
        for folder in [applicationDirectory, directory] {
            var info = stat()
            if stat(folder, &info) == 0, info.st_uid != getuid() {
                try OwnedPath.check(info, path: folder, what: "profile directory", access: .notWritableByOthers)
            }
        }
        do {
            // Missing parents (the config home itself) are made 0700 too, whatever the umask (L4).
            try PrivateFiles.ensureDirectory(directory, privateDirectories: [applicationDirectory, directory])
        } catch {
            throw error.versolaError
        }
        let temporary = path + ".tmp-\(getpid())"
        let bytes = Array((value.serialized() + "\n").utf8)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .configuration(.invalidConfiguration("cannot write \(temporary)")) }
        fchmod(descriptor, 0o600)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw .configuration(.invalidConfiguration("cannot write \(path)"))
        }
    }

    /// Checks a profile name (the engine's one rule, `ProfileDirectory.validate`).
    static func validate(_ profile: String) throws(VersolaError) {
        try ProfileDirectory.validate(profile)
    }
}
