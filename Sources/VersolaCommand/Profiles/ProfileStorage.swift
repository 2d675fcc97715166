import Foundation
import Synchronization
import Versola
import VersolaCrypto

/// A profile's store, opened with the key source its settings name (`login --key-source`):
/// what the agent, the in-process host, `login` and `handle-redirect` all use, so every command
/// reads the session with the same key.
struct ProfileStorage: Sendable {
    /// Asks for a passphrase profile's passphrase; `isNew` when none is set yet (the first
    /// login sets it). Nil leaves the profile locked.
    typealias PassphraseSupplier = @Sendable (_ profile: String, _ isNew: Bool) async -> Passphrase?

    /// The profile's store.
    let store: FileSessionStore
    /// The key source the store uses.
    let keySource: any KeySource
    /// The passphrase source, for a passphrase profile.
    let passphraseSource: PassphraseKeySource?
    /// The passphrase this process was given, once it unlocked the source (to hand to the agent).
    let givenPassphrase: @Sendable () -> Passphrase?

    /// Opens `profile` under `directories`; with `passphrase`, a locked passphrase source asks it
    /// once, when a key is first needed (nothing is asked for a profile with nothing stored).
    init(
        profile: String, settings: ProfileSettings, directories: XDGDirectories, environment: [String: String],
        passphrase: PassphraseSupplier? = nil
    ) throws(VersolaError) {
        let storage = try SessionStorage(
            profile: profile, keySource: settings.keySource, directories: directories, environment: environment)
        passphraseSource = storage.passphraseKeySource
        if let source = storage.passphraseKeySource, let passphrase {
            let asking = AskingKeySource(source: source, ask: passphrase)
            keySource = asking
            givenPassphrase = { asking.given }
            store = try FileSessionStore(profile: profile, directory: directories.stateHome, keySource: asking)
        } else {
            keySource = storage.keySource
            givenPassphrase = { nil }
            store = storage.store
        }
        store.onSpillTakenUp { FileHandle.standardError.write(Data(Self.notice($0).utf8)) }
    }

    /// What the command says on standard error when it took up a record another process
    /// spilled because the disk refused it (P10).
    static func notice(_ takeUp: SpillTakeUp) -> String {
        let spill = TerminalText.visible(takeUp.spillPath), record = TerminalText.visible(takeUp.recordPath)
        guard takeUp.written else {
            return "versola: the session an earlier process renewed is served from \(spill), where it was kept when the "
                + "disk refused it; the disk still refuses \(record): free some space there\n"
        }
        return "versola: the session an earlier process renewed could not be stored when it was renewed; "
            + "it was kept in \(spill) and is now stored in \(record)\n"
    }
}

/// A passphrase source that asks for its passphrase the first time a key is needed while it is
/// locked (one question per process: a wrong answer leaves it locked, `unlockRequired`).
private final class AskingKeySource: KeySource, Sendable {
    private let source: PassphraseKeySource
    private let ask: ProfileStorage.PassphraseSupplier
    private let state = Mutex<(asked: Bool, given: Passphrase?)>((false, nil))

    init(source: PassphraseKeySource, ask: @escaping ProfileStorage.PassphraseSupplier) {
        self.source = source
        self.ask = ask
    }

    var given: Passphrase? { state.withLock { $0.given } }

    func dataKey() async throws(VersolaError) -> SymmetricKey {
        if await source.isLocked, state.withLock({ state in defer { state.asked = true }; return !state.asked }) {
            let isNew = !FileManager.default.fileExists(atPath: source.passphraseFile.path)
            if let answer = await ask(source.profile, isNew) {
                try await source.unlock(passphrase: answer)
                state.withLock { $0.given = answer }
            }
        }
        return try await source.dataKey()
    }
}
