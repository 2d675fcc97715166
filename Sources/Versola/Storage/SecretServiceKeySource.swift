import VersolaHTTP
import Foundation
import VersolaCrypto
import VersolaJOSE

/// A ``KeySource`` keeping the data key in the desktop's Secret Service (GNOME Keyring,
/// KWallet …) through the `secret-tool` command (Debian package `libsecret-tools`).
///
/// The key is the secret of the item with attributes `application versola profile <name>`,
/// 32 random bytes written as base64url, created on first use (`secret-tool store`).
/// When the Secret Service cannot be reached — `secret-tool` missing, no D-Bus session, a
/// locked collection whose unlock prompt was dismissed, any other complaint from the tool —
/// ``dataKey()`` throws `.recoverable(.unlockRequired)` (S10): the session shows `locked` and
/// keeps its grant until the keyring is available. It is not the default key source.
///
/// Limits: `secret-tool` may wait for an unlock prompt as long as the desktop shows it; two
/// processes creating the key for a new profile at the same moment can both store one (the
/// last wins). Create the store's first record from one process.
public struct SecretServiceKeySource: KeySource {
    /// The profile whose key this is.
    public let profile: String
    /// The `secret-tool` program used, when one was found.
    public let tool: URL?

    /// Creates the source for `profile`.
    /// - Parameters:
    ///   - tool: the `secret-tool` program; nil searches `$PATH` in `environment`.
    /// - Throws: `.configuration(.invalidConfiguration)` for an invalid profile name.
    public init(
        profile: String, tool: URL? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(VersolaError) {
        try ProfileDirectory.validate(profile)
        self.profile = profile
        self.tool = tool ?? Self.search("secret-tool", path: environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
    }

    /// The key, created in the Secret Service on first use.
    /// - Throws: `.recoverable(.unlockRequired)` when the Secret Service cannot be used;
    ///   `.configuration(.invalidConfiguration)` when the stored item is not a Versola key.
    public func dataKey() async throws(VersolaError) -> SymmetricKey {
        guard let tool else { throw .recoverable(.unlockRequired) }
        if let key = try await lookUp(tool) { return key }
        let created = SymmetricKey.generate()
        let label = "Versola session key (\(profile))"
        guard
            let stored = await ChildProcess.run(
                tool, arguments: ["store", "--label=\(label)"] + attributes, input: Array(Base64URL.encode(created.bytes).utf8)),
            stored.status == 0
        else {
            throw .recoverable(.unlockRequired)
        }
        // Read back what the Secret Service now holds, in case another process stored first.
        guard let key = try await lookUp(tool) else { throw .recoverable(.unlockRequired) }
        return key
    }

    private var attributes: [String] { ["application", "versola", "profile", profile] }

    /// The stored key, nil when there is no item yet.
    private func lookUp(_ tool: URL) async throws(VersolaError) -> SymmetricKey? {
        guard let outcome = await ChildProcess.run(tool, arguments: ["lookup"] + attributes) else {
            throw .recoverable(.unlockRequired)
        }
        let text = String(decoding: outcome.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if outcome.status == 0 && !text.isEmpty {
            guard let bytes = try? Base64URL.decode(text), let key = try? SymmetricKey(bytes: bytes) else {
                throw .configuration(
                    .invalidConfiguration(
                        "the Secret Service item 'application versola profile \(profile)' is not a Versola key"))
            }
            return key
        }
        // `secret-tool lookup` exits 1 silently when no item matches; anything it says on
        // standard error (no D-Bus, locked, dismissed prompt) means it could not look.
        if outcome.status <= 1 && outcome.errorOutput.isEmpty { return nil }
        throw .recoverable(.unlockRequired)
    }

    private static func search(_ name: String, path: String) -> URL? {
        for directory in path.split(separator: ":") where directory.hasPrefix("/") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return URL(fileURLWithPath: candidate) }
        }
        return nil
    }
}
