import VersolaHTTP
import Foundation

/// Which ``KeySource`` seals a profile's record. Raw values are the command line's names.
public enum KeySourceKind: String, Sendable, Hashable, CaseIterable {
    /// A key file only the user can read, under `$XDG_STATE_HOME/versola` (the default;
    /// ``KeyFileKeySource``).
    case keyFile = "file"
    /// A key derived from a passphrase, locked until it is given (``PassphraseKeySource``).
    case passphrase
    /// A key kept in the desktop keyring, reached through `secret-tool`
    /// (``SecretServiceKeySource``).
    case secretService = "secret-service"
}

/// A profile's store with its key source: what the session layer and the command open.
///
/// ```swift
/// let storage = try SessionStorage.standard(profile: "work", keySource: .passphrase)
/// try await storage.passphraseKeySource?.unlock(passphrase: askUser())
/// let record = try await storage.store.load()
/// print(record?.subject ?? "nobody is signed in")
/// ```
public struct SessionStorage: Sendable {
    /// The profile's store.
    public let store: FileSessionStore
    /// The key source sealing it.
    public let keySource: any KeySource

    /// The key source to unlock, when it is a passphrase.
    public var passphraseKeySource: PassphraseKeySource? { keySource as? PassphraseKeySource }

    /// Opens `profile` under `directories` with the chosen kind of key source.
    /// - Throws: `.configuration(.invalidConfiguration)` for an invalid profile name.
    public init(
        profile: String, keySource kind: KeySourceKind = .keyFile, directories: XDGDirectories,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(VersolaError) {
        let source: any KeySource
        switch kind {
        case .keyFile:
            source = KeyFileKeySource(directories: directories)
        case .passphrase:
            source = try PassphraseKeySource(profile: profile, directory: directories.stateHome)
        case .secretService:
            source = try SecretServiceKeySource(profile: profile, environment: environment)
        }
        keySource = source
        store = try FileSessionStore(profile: profile, directory: directories.stateHome, keySource: source)
    }

    /// Opens `profile` under this user's XDG directories (read from `environment`).
    /// - Throws: `.configuration(.invalidConfiguration)` for an invalid profile name or no
    ///   home directory.
    public static func standard(
        profile: String, keySource kind: KeySourceKind = .keyFile,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(VersolaError) -> SessionStorage {
        try SessionStorage(
            profile: profile, keySource: kind, directories: try XDGDirectories.current(environment: environment),
            environment: environment)
    }
}
