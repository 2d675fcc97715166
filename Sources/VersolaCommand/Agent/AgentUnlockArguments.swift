import Versola
import VersolaJOSE

/// The arguments of `unlock`: a passphrase as its bytes in base64url (they need not be UTF-8,
/// and JSON carries only text), and the legacy bytes when they differ
/// (`{"passphraseBytes":…}`); none asks the agent to read the profile's key source again.
public struct AgentUnlockArguments: Sendable, Hashable {
    /// The passphrase; nil to look at the key source again (a keyring unlocked meanwhile).
    public var passphrase: Passphrase?

    /// Creates arguments.
    public init(passphrase: Passphrase? = nil) {
        self.passphrase = passphrase
    }

    /// The `args` member.
    var object: JSONObject {
        guard let passphrase else { return JSONObject() }
        var members: JSONObject = ["passphraseBytes": .string(Base64URL.encode(passphrase.bytes))]
        if passphrase.legacyBytes != passphrase.bytes {
            members["legacyPassphraseBytes"] = .string(Base64URL.encode(passphrase.legacyBytes))
        }
        return members
    }

    /// Reads the `args` member (a malformed passphrase reads as none).
    init(_ arguments: JSONObject) {
        guard let text = arguments["passphraseBytes"]?.string, let bytes = try? Base64URL.decode(text) else {
            // A command of an earlier version sends the text.
            passphrase = arguments["passphrase"]?.string.map { Passphrase($0) }
            return
        }
        let legacy = arguments["legacyPassphraseBytes"]?.string.flatMap { try? Base64URL.decode($0) }
        passphrase = Passphrase(bytes: bytes, legacyBytes: legacy ?? bytes)
    }
}
