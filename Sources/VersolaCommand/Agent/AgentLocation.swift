import Foundation

/// Where the session agent listens: `$XDG_RUNTIME_DIR/versola/agent.sock`, or when that
/// variable is unset or unusable, `${TMPDIR:-/tmp}/versola-<uid>/agent.sock`. Every directory
/// is ours and 0700; when none can be made safe there is no agent (commands run in-process).
public struct AgentLocation: Sendable, Hashable {
    /// The directory holding the socket and the agent's lock file (0700, owned by us).
    public let directory: String

    /// Uses `directory` as is (it must already be private).
    public init(directory: String) {
        self.directory = directory
    }

    /// The socket.
    public var socketPath: String { directory + "/agent.sock" }
    /// The lock file the running agent holds for its whole life (one agent per user).
    public var lockPath: String { directory + "/agent.lock" }

    /// The longest socket path `sockaddr_un` holds.
    static let maximumSocketPathLength = 107

    /// Finds (and creates when missing) the agent directory for this user.
    /// - Returns: nil when no private directory can be had; run without the agent then.
    public static func resolve(environment: [String: String]) -> AgentLocation? {
        let uid = getuid()
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"), isPrivateDirectory(runtime, uid: uid),
            let directory = ensurePrivateDirectory(runtime + "/versola", uid: uid)
        {
            return usable(directory)
        }
        var temporary = environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        while temporary.count > 1, temporary.hasSuffix("/") { temporary.removeLast() }
        guard let directory = ensurePrivateDirectory(temporary + "/versola-\(uid)", uid: uid) else { return nil }
        return usable(directory)
    }

    private static func usable(_ directory: String) -> AgentLocation? {
        let location = AgentLocation(directory: directory)
        return location.socketPath.utf8.count <= maximumSocketPathLength ? location : nil
    }

    /// Whether `path` is a real directory (no symlink) owned by `uid` that nobody else can enter.
    static func isPrivateDirectory(_ path: String, uid: uid_t) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == uid else { return false }
        return info.st_mode & 0o077 == 0
    }

    /// Makes `path` a directory with mode 0700, or checks an existing one is ours (and
    /// tightens its mode). Nil when it exists and is not ours, or is not a directory.
    static func ensurePrivateDirectory(_ path: String, uid: uid_t) -> String? {
        if mkdir(path, 0o700) != 0, errno != EEXIST { return nil }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == uid else { return nil }
        if info.st_mode & 0o777 != 0o700, chmod(path, 0o700) != 0 { return nil }
        return path
    }
}
