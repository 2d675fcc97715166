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
    ///   home directory can be found, or when the one used is not UTF-8.
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(VersolaError) -> XDGDirectories
    {
        func absolute(_ name: String) throws(VersolaError) -> URL? {
            guard let value = environment[name], value.hasPrefix("/") else { return nil }
            try requireIntact(value, name: name)
            return URL(fileURLWithPath: value, isDirectory: true)
        }
        func home() throws(VersolaError) -> String? {
            guard let named = environment["HOME"], named.hasPrefix("/") else { return passwordDatabaseHome() }
            try requireIntact(named, name: "HOME")
            return named
        }
        func directory(_ name: String, under suffix: String) throws(VersolaError) -> URL? {
            if let explicit = try absolute(name) { return explicit }
            return try home().map { URL(fileURLWithPath: $0 + suffix, isDirectory: true) }
        }
        let state = try directory("XDG_STATE_HOME", under: "/.local/state")
        let config = try directory("XDG_CONFIG_HOME", under: "/.config")
        guard let state, let config else {
            throw .configuration(.invalidConfiguration("no home directory: set HOME or XDG_STATE_HOME and XDG_CONFIG_HOME"))
        }
        return XDGDirectories(stateHome: state, configHome: config)
    }

    private static func passwordDatabaseHome() -> String? {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir,
            let path = String(validatingCString: directory)
        else { return nil }
        return path.hasPrefix("/") ? path : nil
    }

    /// Refuses a directory whose name is not UTF-8. The environment reaches Swift decoded, each
    /// invalid byte replaced by U+FFFD: the engine would use another directory than the one
    /// named, and two different homes would become one (the second identity would get the
    /// first one's session). A name really holding U+FFFD is refused as well.
    /// - Throws: `.configuration(.invalidConfiguration)` naming the variable.
    package static func requireIntact(_ path: String, name: String) throws(VersolaError) {
        guard path.unicodeScalars.contains("\u{FFFD}") else { return }
        throw .configuration(
            .invalidConfiguration(
                "\(name) is not valid UTF-8 (or holds U+FFFD): versola cannot use that directory; "
                    + "set \(name) to a directory whose name is UTF-8"))
    }
}
