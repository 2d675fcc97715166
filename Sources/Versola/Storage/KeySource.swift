import VersolaHTTP
import VersolaCrypto

/// Supplies the 256-bit data key that seals a profile's ``SessionRecord``.
///
/// Sources that can be locked (a passphrase not yet given, a locked keyring) throw
/// `.recoverable(.unlockRequired)` until unlocked (S10); nothing stored is touched meanwhile.
public protocol KeySource: Sendable {
    /// The data key.
    /// - Throws: `.recoverable(.unlockRequired)` while locked;
    ///   `.configuration(.invalidConfiguration)` when the key's home is unusable.
    func dataKey() async throws(VersolaError) -> SymmetricKey

    /// Forgets the key of a store whose record was just wiped (logout, the S7 wipe), when the
    /// key belongs to that store alone, so that the next record is sealed with a new one.
    /// Best effort, never fails. The default does nothing (a key shared by profiles, or one the
    /// application keeps).
    func discardKey() async
}

extension KeySource {
    /// Does nothing: see ``KeySource/discardKey()``.
    public func discardKey() async {}
}

/// A ``KeySource`` holding a key the application already has (from its own keystore, or
/// for tests).
public struct FixedKeySource: KeySource {
    private let key: SymmetricKey

    /// Uses `key` as the data key.
    public init(key: SymmetricKey) {
        self.key = key
    }

    /// The key given at creation.
    public func dataKey() async throws(VersolaError) -> SymmetricKey { key }
}
