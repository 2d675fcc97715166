import Versola
import VersolaJOSE

/// A passphrase in an agent request (`unlock`): its bytes as base64url (they need not be
/// UTF-8, and JSON carries only text), and the legacy bytes when they differ.
enum PassphraseArguments {
    /// The members that carry `passphrase`.
    static func encode(_ passphrase: Passphrase) -> JSONObject {
        var members: JSONObject = ["passphraseBytes": .string(Base64URL.encode(passphrase.bytes))]
        if passphrase.legacyBytes != passphrase.bytes {
            members["legacyPassphraseBytes"] = .string(Base64URL.encode(passphrase.legacyBytes))
        }
        return members
    }

    /// The passphrase `arguments` carry, nil when none (or a malformed one).
    static func decode(_ arguments: JSONObject) -> Passphrase? {
        guard let text = arguments["passphraseBytes"]?.string, let bytes = try? Base64URL.decode(text) else {
            // A command of an earlier version sends the text.
            return arguments["passphrase"]?.string.map { Passphrase($0) }
        }
        let legacy = arguments["legacyPassphraseBytes"]?.string.flatMap { try? Base64URL.decode($0) }
        return Passphrase(bytes: bytes, legacyBytes: legacy ?? bytes)
    }
}
