import Versola

/// Keeps a held session's `locked` state (S10) in step with its key source when nothing else
/// would read the store: a keyring locks or unlocks outside versola, and a session serving an
/// access token from memory would not notice either.
enum KeySourceProbe {
    /// A locked session whose key source gives its key again returns to the state the lock
    /// interrupted (or reads the store, when it was locked from the start).
    static func noticeUnlocking(_ session: Session, keySource: any KeySource) async {
        guard session.state == .locked, (try? await keySource.dataKey()) != nil else { return }
        await session.unlocked()
    }

    /// A session holding a grant whose keyring (the Secret Service) no longer gives the key
    /// reads the store, which makes it `locked` with the grant kept. Other key sources lock only
    /// through this process (a passphrase source), so they are not asked.
    static func noticeLocking(_ session: Session, keySource: any KeySource, kind: KeySourceKind) async {
        guard kind == .secretService, session.state.holdsGrant, session.state != .locked, session.state != .loggingOut
        else { return }
        do throws(VersolaError) {
            _ = try await keySource.dataKey()
        } catch .recoverable(.unlockRequired) {
            await session.reloadFromStore()
        } catch {
            // Not a lock (no bus, no tool): the next operation that needs the store reports it.
        }
    }

    /// `versola unlock`: unlocks a passphrase source with `passphrase`, or, without one, reads
    /// the key source again (a keyring unlocked meanwhile); then the session follows.
    /// - Throws: `.recoverable(.unlockRequired)` for a wrong passphrase or a keyring still
    ///   locked; `.configuration(.invalidConfiguration)` for a passphrase given to a profile that
    ///   has none, and whatever the key source throws.
    static func unlock(_ session: Session, storage: ProfileStorage, passphrase: Passphrase?, profile: String)
        async throws(VersolaError)
    {
        if let passphrase {
            guard let source = storage.passphraseSource else {
                throw .configuration(.invalidConfiguration("profile '\(profile)' keeps its key without a passphrase"))
            }
            try await source.unlock(passphrase: passphrase)
        } else {
            _ = try await storage.keySource.dataKey()
        }
        if session.state == .locked { await session.unlocked() }
    }
}
