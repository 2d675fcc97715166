import VersolaHTTP
import Foundation

/// The XDG base directories Versola uses (L3): state for session records and the key file,
/// config for the command's profiles (and, in earlier versions, the key file).
///
/// `$XDG_STATE_HOME` and `$XDG_CONFIG_HOME` are used when set to an absolute path (the XDG
/// specification says relative values are ignored); otherwise `~/.local/state` and
/// `~/.config`, with `~` from `$HOME` or, failing that, the password database.
public struct XDGDirectories: Sendable, Hashable {
    /// Where session records and the key file live: `$XDG_STATE_HOME` or `~/.local/state`.
    public var stateHome: URL
    /// Where the command keeps its profiles: `$XDG_CONFIG_HOME` or `~/.config` (a key file
    /// earlier versions left here is moved to the state home, ``KeyFileKeySource``).
    public var configHome: URL

    /// Uses the given directories.
    public init(stateHome: URL, configHome: URL) {
        self.stateHome = stateHome
        self.configHome = configHome
    }

    /// The directories for this user, read from `environment`.
    /// - Throws: `.configuration(.invalidConfiguration)` when neither the XDG variables nor a
    ///   home directory can be found.
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(VersolaError) -> XDGDirectories
    {
        func absolute(_ name: String) -> URL? {
            guard let value = environment[name], value.hasPrefix("/") else { return nil }
            return URL(fileURLWithPath: value, isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? passwordDatabaseHome()
        let state = absolute("XDG_STATE_HOME") ?? home.map { URL(fileURLWithPath: $0 + "/.local/state", isDirectory: true) }
        let config = absolute("XDG_CONFIG_HOME") ?? home.map { URL(fileURLWithPath: $0 + "/.config", isDirectory: true) }
        guard let state, let config else {
            throw .configuration(.invalidConfiguration("no home directory: set HOME or XDG_STATE_HOME and XDG_CONFIG_HOME"))
        }
        return XDGDirectories(stateHome: state, configHome: config)
    }

    private static func passwordDatabaseHome() -> String? {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        let path = String(cString: directory)
        return path.hasPrefix("/") ? path : nil
    }
}
