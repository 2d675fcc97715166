import Foundation
import VersolaCrypto
import VersolaHTTP
import VersolaJOSE

/// A ``KeySource`` whose data key is derived from a passphrase's bytes (``Passphrase``) with
/// scrypt (N = 2^15, r = 8, p = 1 by default), locked until `unlock(passphrase:)` is called.
///
/// While locked, ``dataKey()`` throws `.recoverable(.unlockRequired)` (S10), so the session
/// reports `locked` and keeps its grant. The salt, the scrypt parameters and a key check
/// value (a constant sealed with the derived key) live in `<state home>/versola/<profile>/passphrase`
/// (0600), created by the first unlock: the first passphrase given becomes the profile's
/// passphrase. A later unlock with another passphrase fails the key check and throws
/// `.recoverable(.unlockRequired)`: the source stays locked and nothing stored is touched —
/// a wrong passphrase is never mistaken for tampering with the record.
///
/// A damaged or edited passphrase file is `.configuration(.invalidConfiguration)` naming it;
/// removing it lets a new passphrase be set, after which the old record no longer opens
/// (`credentialsInvalidated`, a sign-out).
///
/// ```swift
/// let source = try PassphraseKeySource(profile: "work", directory: directories.stateHome)
/// try await source.unlock(passphrase: askUser())
/// let store = try FileSessionStore(profile: "work", directory: directories.stateHome, keySource: source)
/// let record = try await store.load()
/// print(record?.subject ?? "nobody is signed in")
/// ```
public actor PassphraseKeySource: KeySource {
    /// The profile whose passphrase this is.
    public nonisolated var profile: String { directory.profile }
    /// The file holding the salt, parameters and key check value.
    public nonisolated var passphraseFile: URL { URL(fileURLWithPath: directory.passphrasePath) }

    private nonisolated let directory: ProfileDirectory
    private let parameters: KeyDerivation.ScryptParameters
    private var key: SymmetricKey?

    /// The largest passphrase file read.
    private static let maximumFileSize = 16 * 1024
    private static let checkConstant = Array("versola passphrase key check".utf8)

    /// Creates a locked source for `profile` under the XDG state home `directory`.
    /// - Parameters:
    ///   - profile: the profile whose record the key seals.
    ///   - directory: the XDG state home; the passphrase file is in the profile's directory under it.
    ///   - parameters: the scrypt cost used when the passphrase is first set (later unlocks use
    ///     the parameters stored with the salt).
    /// - Throws: `.configuration(.invalidConfiguration)` for an invalid profile name.
    public init(
        profile: String, directory: URL, parameters: KeyDerivation.ScryptParameters = .interactive
    ) throws(VersolaError) {
        self.directory = try ProfileDirectory(profile: profile, stateHome: directory)
        self.parameters = parameters
    }

    /// Whether `unlock(passphrase:)` is still needed.
    public var isLocked: Bool { key == nil }

    /// Derives the data key from `passphrase`'s bytes and checks it against the stored key
    /// check value; the first unlock of a profile sets its passphrase.
    ///
    /// A passphrase file written by an earlier version (which derived from the passphrase
    /// decoded as UTF-8 with replacement) is opened with ``Passphrase/legacyBytes`` when the
    /// bytes themselves do not open it, and is then rewritten for the bytes: the data key stays
    /// the same, sealed with the key the bytes give, so the stored record still opens, and from
    /// then on only these bytes unlock it.
    /// - Throws: `.recoverable(.unlockRequired)` for a wrong (or empty) passphrase, the source
    ///   staying locked; `.configuration(.invalidConfiguration)` for a damaged passphrase file
    ///   or an I/O failure.
    public func unlock(passphrase: Passphrase) async throws(VersolaError) {
        guard !passphrase.isEmpty else { throw .recoverable(.unlockRequired) }
        let directory = self.directory
        let parameters = self.parameters
        // scrypt takes a good fraction of a second by design: keep it off the threads tasks need.
        let outcome = await DedicatedThread.run { Self.checkedKey(passphrase, directory: directory, parameters: parameters) }
        key = try outcome.get()
    }

    /// Unlocks with the UTF-8 bytes of `passphrase`, as the ``Passphrase`` overload does.
    public func unlock(passphrase: String) async throws(VersolaError) {
        try await unlock(passphrase: Passphrase(passphrase))
    }

    /// The key for `passphrase`, checked against the passphrase file (created when missing,
    /// migrated when an earlier version wrote it).
    private static func checkedKey(
        _ passphrase: Passphrase, directory: ProfileDirectory, parameters: KeyDerivation.ScryptParameters
    ) -> Result<SymmetricKey, VersolaError> {
        let context = checkContext(directory)
        do {
            if let stored = try readSettings(directory) {
                return .success(try opened(stored, passphrase, directory: directory, context: context))
            }
            try directory.ensure()
            let fresh = try PassphraseSettings.create(passphrase: passphrase.bytes, parameters: parameters, context: context)
            if try PrivateFiles.createExclusively(fresh.settings.serialized(), at: directory.passphrasePath, in: directory.path)
            {
                return .success(fresh.key)
            }
            // Another process set the passphrase first: check against theirs.
            guard let stored = try readSettings(directory) else { return .failure(damaged(directory)) }
            return .success(try opened(stored, passphrase, directory: directory, context: context))
        } catch let failure as FileSystemFailure {
            return .failure(failure.versolaError)
        } catch let error as VersolaError {
            return .failure(error)
        } catch {
            return .failure(damaged(directory))
        }
    }

    /// The data key `stored` gives for `passphrase`; a file of an earlier version is rewritten
    /// for the passphrase's bytes (best effort: when that fails it is tried again next time).
    private static func opened(
        _ stored: PassphraseSettings, _ passphrase: Passphrase, directory: ProfileDirectory, context: [UInt8]
    ) throws -> SymmetricKey {
        let (key, migrated) = try stored.open(passphrase, context: context)
        if let migrated {
            try? PrivateFiles.writeAtomically(migrated.serialized(), to: directory.passphrasePath, in: directory.path)
        }
        return key
    }

    /// Forgets the derived key; ``dataKey()`` throws `unlockRequired` again.
    public func lock() {
        key = nil
    }

    /// The derived key.
    /// - Throws: `.recoverable(.unlockRequired)` while locked.
    public func dataKey() async throws(VersolaError) -> SymmetricKey {
        guard let key else { throw .recoverable(.unlockRequired) }
        return key
    }

    static func checkContext(_ directory: ProfileDirectory) -> [UInt8] {
        checkConstant + Array(" profile \(directory.profile)".utf8)
    }

    private static func damaged(_ directory: ProfileDirectory) -> VersolaError {
        .configuration(
            .invalidConfiguration(
                "passphrase file \(directory.passphrasePath) is damaged; remove it to set a new passphrase (the stored session is then lost)"
            ))
    }

    private static func readSettings(_ directory: ProfileDirectory) throws -> PassphraseSettings? {
        switch try PrivateFiles.read(directory.passphrasePath, limit: maximumFileSize) {
        case .missing: return nil
        case .tooLarge: throw damaged(directory)
        case .contents(let bytes):
            guard let settings = PassphraseSettings(serialized: bytes) else { throw damaged(directory) }
            return settings
        }
    }
}

/// The contents of the passphrase file: scrypt parameters, salt and key check value.
///
/// Version 1 (earlier versions) derived from the passphrase decoded as UTF-8 with
/// replacement; version 2 derives from its bytes. A version 2 file migrated from version 1
/// also holds the data key version 1 derived, sealed with the key the bytes give (`key`), so
/// that the record sealed with it still opens.
struct PassphraseSettings: Sendable, Hashable {
    var version: Int64
    var parameters: KeyDerivation.ScryptParameters
    var salt: [UInt8]
    /// ``PassphraseKeySource``'s check constant sealed with the derived key.
    var check: [UInt8]
    /// A migrated file's data key, sealed with the derived key.
    var wrappedKey: [UInt8]?

    /// Limits on stored parameters, so an edited file cannot make unlocking take forever.
    static let maximumCost: UInt64 = 1 << 20
    static let maximumBlockSize: UInt64 = 32
    static let maximumParallelism: UInt64 = 16

    /// New (version 2) settings with a fresh salt for `passphrase`, and the key they give.
    static func create(passphrase: [UInt8], parameters: KeyDerivation.ScryptParameters, context: [UInt8]) throws
        -> (settings: PassphraseSettings, key: SymmetricKey)
    {
        let salt = SecureRandom.bytes(16)
        let key = try derive(passphrase, salt: salt, parameters: parameters)
        let check = try AESGCM.seal([], key: key, authenticating: context)
        return (PassphraseSettings(version: 2, parameters: parameters, salt: salt, check: check), key)
    }

    /// The data key for `passphrase` when it passes the check, and the settings to write
    /// instead when these are version 1 (nil otherwise).
    /// - Throws: `.recoverable(.unlockRequired)` when it does not pass.
    func open(_ passphrase: Passphrase, context: [UInt8]) throws -> (key: SymmetricKey, migrated: PassphraseSettings?) {
        if let derived = try checked(passphrase.bytes, context: context) {
            guard version == 1 else { return (try unwrapped(derived, context: context), nil) }
            // The bytes gave version 1's key (they are UTF-8): only the version changes.
            var same = self
            same.version = 2
            return (derived, same)
        }
        guard version == 1, passphrase.legacyBytes != passphrase.bytes,
            let legacy = try checked(passphrase.legacyBytes, context: context)
        else { throw VersolaError.recoverable(.unlockRequired) }
        var fresh = try Self.create(passphrase: passphrase.bytes, parameters: parameters, context: context)
        fresh.settings.wrappedKey = try AESGCM.seal(legacy.bytes, key: fresh.key, authenticating: context + Self.wrapping)
        return (legacy, fresh.settings)
    }

    private static let wrapping = Array(" data key".utf8)

    /// The key `secret` derives when it opens the check value.
    private func checked(_ secret: [UInt8], context: [UInt8]) throws -> SymmetricKey? {
        let key = try Self.derive(secret, salt: salt, parameters: parameters)
        return (try? AESGCM.open(check, key: key, authenticating: context)) != nil ? key : nil
    }

    /// The data key: `derived` itself, or the key a migrated file seals with it.
    private func unwrapped(_ derived: SymmetricKey, context: [UInt8]) throws -> SymmetricKey {
        guard let wrappedKey else { return derived }
        return try SymmetricKey(bytes: try AESGCM.open(wrappedKey, key: derived, authenticating: context + Self.wrapping))
    }

    private static func derive(_ passphrase: [UInt8], salt: [UInt8], parameters: KeyDerivation.ScryptParameters)
        throws -> SymmetricKey
    {
        try SymmetricKey(
            bytes: try KeyDerivation.scrypt(passphrase: passphrase, salt: salt, parameters: parameters, length: 32))
    }

    func serialized() -> [UInt8] {
        var members: [(String, JSONValue)] = [
            ("version", .integer(version)), ("kdf", "scrypt"),
            ("N", .integer(Int64(parameters.cost))), ("r", .integer(Int64(parameters.blockSize))),
            ("p", .integer(Int64(parameters.parallelism))),
            ("salt", .string(Base64URL.encode(salt))), ("check", .string(Base64URL.encode(check))),
        ]
        if let wrappedKey { members.append(("key", .string(Base64URL.encode(wrappedKey)))) }
        return JSONValue.object(JSONObject(members)).serializedBytes()
    }

    init(
        version: Int64, parameters: KeyDerivation.ScryptParameters, salt: [UInt8], check: [UInt8], wrappedKey: [UInt8]? = nil
    ) {
        self.version = version
        self.parameters = parameters
        self.salt = salt
        self.check = check
        self.wrappedKey = wrappedKey
    }

    /// Parses the file; nil for anything malformed or out of range.
    init?(serialized bytes: [UInt8]) {
        guard let value = try? JSONValue(parsing: bytes), let object = value.object,
            let version = value["version"]?.int64, version == 1 || version == 2, value["kdf"]?.string == "scrypt",
            let n = value["N"]?.int64, let r = value["r"]?.int64, let p = value["p"]?.int64,
            n > 1, n <= Int64(Self.maximumCost), r > 0, r <= Int64(Self.maximumBlockSize),
            p > 0, p <= Int64(Self.maximumParallelism),
            let saltText = value["salt"]?.string, let salt = try? Base64URL.decode(saltText), salt.count >= 16,
            let checkText = value["check"]?.string, let check = try? Base64URL.decode(checkText),
            check.count == AESGCM.nonceSize + AESGCM.tagSize
        else { return nil }
        var wrappedKey: [UInt8]?
        if let text = value["key"]?.string {
            guard version == 2, let sealed = try? Base64URL.decode(text), sealed.count == AESGCM.nonceSize + 32 + AESGCM.tagSize
            else { return nil }
            wrappedKey = sealed
        }
        guard object.count == (wrappedKey == nil ? 7 : 8) else { return nil }
        self.init(
            version: version, parameters: .init(cost: UInt64(n), blockSize: UInt64(r), parallelism: UInt64(p)), salt: salt,
            check: check, wrappedKey: wrappedKey)
    }
}
