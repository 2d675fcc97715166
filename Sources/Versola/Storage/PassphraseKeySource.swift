import Foundation
import VersolaCrypto
import VersolaHTTP
import VersolaJOSE

/// A ``KeySource`` whose data key is derived from a passphrase with scrypt
/// (N = 2^15, r = 8, p = 1 by default), locked until ``unlock(passphrase:)`` is called.
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

    /// Whether ``unlock(passphrase:)`` is still needed.
    public var isLocked: Bool { key == nil }

    /// Derives the data key from `passphrase` and checks it against the stored key check
    /// value; the first unlock of a profile sets its passphrase.
    /// - Throws: `.recoverable(.unlockRequired)` for a wrong (or empty) passphrase, the source
    ///   staying locked; `.configuration(.invalidConfiguration)` for a damaged passphrase file
    ///   or an I/O failure.
    public func unlock(passphrase: String) async throws(VersolaError) {
        guard !passphrase.isEmpty else { throw .recoverable(.unlockRequired) }
        let secret = Array(passphrase.utf8)
        let directory = self.directory
        let parameters = self.parameters
        // scrypt takes a good fraction of a second by design: keep it off the threads tasks need.
        let outcome = await DedicatedThread.run { Self.checkedKey(secret, directory: directory, parameters: parameters) }
        key = try outcome.get()
    }

    /// The key for `secret`, checked against the passphrase file (created when missing).
    private static func checkedKey(
        _ secret: [UInt8], directory: ProfileDirectory, parameters: KeyDerivation.ScryptParameters
    ) -> Result<SymmetricKey, VersolaError> {
        let context = checkContext(directory)
        do {
            if let stored = try readSettings(directory) {
                return .success(try stored.verify(secret, context: context))
            }
            try directory.ensure()
            let fresh = try PassphraseSettings.create(passphrase: secret, parameters: parameters, context: context)
            if try PrivateFiles.createExclusively(fresh.settings.serialized(), at: directory.passphrasePath, in: directory.path)
            {
                return .success(fresh.key)
            }
            // Another process set the passphrase first: check against theirs.
            guard let stored = try readSettings(directory) else { return .failure(damaged(directory)) }
            return .success(try stored.verify(secret, context: context))
        } catch let failure as FileSystemFailure {
            return .failure(failure.versolaError)
        } catch let error as VersolaError {
            return .failure(error)
        } catch {
            return .failure(damaged(directory))
        }
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

    private static func checkContext(_ directory: ProfileDirectory) -> [UInt8] {
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
struct PassphraseSettings: Sendable, Hashable {
    var parameters: KeyDerivation.ScryptParameters
    var salt: [UInt8]
    /// ``PassphraseKeySource``'s check constant sealed with the derived key.
    var check: [UInt8]

    /// Limits on stored parameters, so an edited file cannot make unlocking take forever.
    static let maximumCost: UInt64 = 1 << 20
    static let maximumBlockSize: UInt64 = 32
    static let maximumParallelism: UInt64 = 16

    /// New settings with a fresh salt for `passphrase`, and the key they give.
    static func create(passphrase: [UInt8], parameters: KeyDerivation.ScryptParameters, context: [UInt8]) throws
        -> (settings: PassphraseSettings, key: SymmetricKey)
    {
        let salt = SecureRandom.bytes(16)
        let key = try derive(passphrase, salt: salt, parameters: parameters)
        let check = try AESGCM.seal([], key: key, authenticating: context)
        return (PassphraseSettings(parameters: parameters, salt: salt, check: check), key)
    }

    /// The key for `passphrase` when it passes the check.
    /// - Throws: `.recoverable(.unlockRequired)` when it does not.
    func verify(_ passphrase: [UInt8], context: [UInt8]) throws -> SymmetricKey {
        let key = try Self.derive(passphrase, salt: salt, parameters: parameters)
        guard (try? AESGCM.open(check, key: key, authenticating: context)) != nil else {
            throw VersolaError.recoverable(.unlockRequired)
        }
        return key
    }

    private static func derive(_ passphrase: [UInt8], salt: [UInt8], parameters: KeyDerivation.ScryptParameters)
        throws -> SymmetricKey
    {
        try SymmetricKey(
            bytes: try KeyDerivation.scrypt(passphrase: passphrase, salt: salt, parameters: parameters, length: 32))
    }

    func serialized() -> [UInt8] {
        let value: JSONValue = [
            "version": 1,
            "kdf": "scrypt",
            "N": .integer(Int64(parameters.cost)),
            "r": .integer(Int64(parameters.blockSize)),
            "p": .integer(Int64(parameters.parallelism)),
            "salt": .string(Base64URL.encode(salt)),
            "check": .string(Base64URL.encode(check)),
        ]
        return value.serializedBytes()
    }

    init(parameters: KeyDerivation.ScryptParameters, salt: [UInt8], check: [UInt8]) {
        self.parameters = parameters
        self.salt = salt
        self.check = check
    }

    /// Parses the file; nil for anything malformed or out of range.
    init?(serialized bytes: [UInt8]) {
        guard let value = try? JSONValue(parsing: bytes), let object = value.object, object.count == 7,
            value["version"]?.int64 == 1, value["kdf"]?.string == "scrypt",
            let n = value["N"]?.int64, let r = value["r"]?.int64, let p = value["p"]?.int64,
            n > 1, n <= Int64(Self.maximumCost), r > 0, r <= Int64(Self.maximumBlockSize),
            p > 0, p <= Int64(Self.maximumParallelism),
            let saltText = value["salt"]?.string, let salt = try? Base64URL.decode(saltText), salt.count >= 16,
            let checkText = value["check"]?.string, let check = try? Base64URL.decode(checkText),
            check.count == AESGCM.nonceSize + AESGCM.tagSize
        else { return nil }
        self.init(
            parameters: .init(cost: UInt64(n), blockSize: UInt64(r), parallelism: UInt64(p)), salt: salt, check: check)
    }
}
