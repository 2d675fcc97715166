import Foundation
import Versola

/// The key side of `versola login`: the key source the profile names (`--key-source`) must be
/// usable before the browser opens, and a login may not silently change where an existing
/// session's key lives.
struct LoginKeys: Sendable {
    /// The passphrase given, for a passphrase profile: handed to the agent after the login.
    let passphrase: Passphrase?
    /// The passphrase file this login created (the first passphrase of the profile).
    private let createdPassphraseFile: String?
    /// The profile's record file.
    private let recordFile: String

    /// Refuses a login that would change the key source of a profile that holds a session: the
    /// new source cannot open the record sealed by the old one, and the old grant would stay
    /// behind, neither usable nor revoked.
    /// - Throws: `.configuration(.invalidConfiguration)` saying to sign out first.
    static func refuseChange(from saved: ProfileSettings?, to settings: ProfileSettings, storage: ProfileStorage, profile: String)
        throws(VersolaError)
    {
        guard let saved, saved.keySource != settings.keySource,
            FileManager.default.fileExists(atPath: storage.store.recordFile.path)
        else { return }
        let flag = profile == "default" ? "" : " --profile \(ShellWord.quoted(profile))"
        throw .configuration(
            .invalidConfiguration(
                "profile '\(profile)' keeps its session with \(words(saved.keySource)), not \(words(settings.keySource)); "
                    + "sign out first (versola logout\(flag)), then sign in with --key-source \(settings.keySource.rawValue)"))
    }

    /// Readies the profile's key source for the login: a passphrase profile's passphrase is read
    /// (`--passphrase-fd`, `VERSOLA_PASSPHRASE_FD` or the terminal; asked twice when it is set
    /// now) and checked, before anything is stored or opened.
    /// - Throws: `.recoverable(.unlockRequired)` for a wrong passphrase; what
    ///   ``PassphraseInput/read(profile:isNew:descriptor:)`` throws.
    static func unlock(_ storage: ProfileStorage, profile: String, descriptor: Int32?) async throws(VersolaError)
        -> LoginKeys
    {
        let recordFile = storage.store.recordFile.path
        guard let source = storage.passphraseSource else {
            return LoginKeys(passphrase: nil, createdPassphraseFile: nil, recordFile: recordFile)
        }
        let file = source.passphraseFile.path
        let isNew = !FileManager.default.fileExists(atPath: file)
        let passphrase = try await PassphraseInput.read(profile: profile, isNew: isNew, descriptor: descriptor)
        try await source.unlock(passphrase: passphrase)
        return LoginKeys(passphrase: passphrase, createdPassphraseFile: isNew ? file : nil, recordFile: recordFile)
    }

    /// After a failed login: a passphrase this login set goes again, unless the store keeps
    /// something sealed with it (a pending request a later `handle-redirect` may finish).
    func settle() {
        guard let createdPassphraseFile, !FileManager.default.fileExists(atPath: recordFile) else { return }
        unlink(createdPassphraseFile)
    }

    /// A key source in plain words.
    static func words(_ kind: KeySourceKind) -> String {
        switch kind {
        case .keyFile: "the key file"
        case .secretService: "the desktop keyring (secret-service)"
        case .passphrase: "a passphrase"
        }
    }
}
