import VersolaHTTP
import Foundation
import VersolaCrypto
import VersolaJOSE

/// A ``KeySource`` keeping the data key in the desktop's Secret Service (GNOME Keyring,
/// KWallet, KeePassXC …) through the `secret-tool` command (Debian package `libsecret-tools`).
///
/// The key is the secret of the item with attributes `application versola profile <name>`,
/// 32 random bytes written as base64url, created on first use (`secret-tool store`) and removed
/// by ``discardKey()`` (on logout and every other wipe of the record), so each sign-in gets a
/// key of its own.
///
/// Failures, read from what `secret-tool` says:
/// - a locked collection — its unlock prompt dismissed, or no prompt can be shown — throws
///   `.recoverable(.unlockRequired)` (S10): the session shows `locked` and keeps its grant until
///   the keyring is unlocked;
/// - `secret-tool` missing, no D-Bus session bus, no Secret Service on the bus, or any other
///   complaint of the tool throw `.configuration(.invalidConfiguration)` saying what to install
///   or set.
///
/// A new key is never stored over an existing one: `secret-tool lookup` says nothing both when
/// no item matches and when the item sits in a locked collection, so before storing, the source
/// asks `secret-tool search` (which never unlocks and lists locked items too) and stores only
/// when it finds no item at all. Storing over the item would make every record sealed with the
/// old key unreadable.
///
/// The tool runs with the environment given at creation (its `PATH` finds the tool; its
/// `DBUS_SESSION_BUS_ADDRESS` names the bus) and `LC_ALL=C`. It may wait as long as the desktop
/// shows an unlock prompt. Two processes creating the key for a new profile at the same moment
/// can both store one (the last wins): create the store's first record from one process.
public struct SecretServiceKeySource: KeySource {
    /// The profile whose key this is.
    public let profile: String
    /// The `secret-tool` program used, when one was found.
    public let tool: URL?
    /// The tool's environment.
    private let toolEnvironment: [String: String]

    /// Creates the source for `profile`.
    /// - Parameters:
    ///   - profile: the profile whose record the key seals (one keyring item per profile).
    ///   - tool: the `secret-tool` program; nil searches `$PATH` in `environment`.
    ///   - environment: the environment the tool runs with.
    /// - Throws: `.configuration(.invalidConfiguration)` for an invalid profile name.
    public init(
        profile: String, tool: URL? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(VersolaError) {
        try ProfileDirectory.validate(profile)
        self.profile = profile
        self.tool = tool ?? ChildProcess.find("secret-tool", searchPath: environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
        var toolEnvironment = environment
        toolEnvironment["LC_ALL"] = "C"
        self.toolEnvironment = toolEnvironment
    }

    /// The key, created in the Secret Service when no item exists yet.
    /// - Throws: `.recoverable(.unlockRequired)` while the keyring is locked;
    ///   `.configuration(.invalidConfiguration)` when the Secret Service cannot be used, or the
    ///   stored item is not a Versola key.
    public func dataKey() async throws(VersolaError) -> SymmetricKey {
        guard let tool else { throw SecretToolComplaint.missingTool }
        if let key = try await lookUp(tool) { return key }
        try await requireNoItem(tool)
        let created = SymmetricKey.generate()
        let stored = try await run(
            tool, ["store", "--label=Versola session key (\(profile))"] + attributes,
            input: Array(Base64URL.encode(created.bytes).utf8))
        if stored.status != 0 {
            // A store that fails without a word is an unlock prompt dismissed.
            throw SecretToolComplaint(errorOutput: stored.errorOutput)?.error(action: "store") ?? .recoverable(.unlockRequired)
        }
        // Read back what the Secret Service now holds, in case another process stored first.
        guard let key = try await lookUp(tool) else { throw .recoverable(.unlockRequired) }
        return key
    }

    /// Removes the profile's item (`secret-tool clear`), so the next record gets a new key.
    /// Best effort: a locked or unreachable keyring keeps it, and the next sign-in reuses it.
    public func discardKey() async {
        guard let tool else { return }
        _ = try? await run(tool, ["clear"] + attributes)
    }

    /// The item's attributes, after `--`: a profile named like an option (`--help`) stays an
    /// attribute value, never an option of `secret-tool`.
    private var attributes: [String] { ["--", "application", "versola", "profile", profile] }

    /// The stored key; nil when `secret-tool lookup` found nothing it could read.
    private func lookUp(_ tool: URL) async throws(VersolaError) -> SymmetricKey? {
        let outcome = try await run(tool, ["lookup"] + attributes)
        let text = String(decoding: outcome.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if outcome.status == 0 && !text.isEmpty {
            guard let bytes = try? Base64URL.decode(text), let key = try? SymmetricKey(bytes: bytes) else { throw foreignItem }
            return key
        }
        // Exit 1 in silence: no match, or a match in a locked collection (told apart by requireNoItem).
        guard let complaint = SecretToolComplaint(errorOutput: outcome.errorOutput) else {
            if outcome.status <= 1 { return nil }
            throw SecretToolComplaint.other(said: "lookup ended with status \(outcome.status)").error(action: "read")
        }
        throw complaint.error(action: "read")
    }

    /// Passes only when the Secret Service holds no item of this profile, locked or not.
    private func requireNoItem(_ tool: URL) async throws(VersolaError) {
        let outcome = try await run(tool, ["search"] + attributes)
        let complaint = SecretToolComplaint(errorOutput: outcome.errorOutput)
        guard outcome.status == 0 else {
            throw (complaint ?? .other(said: "search ended with status \(outcome.status)")).error(action: "read")
        }
        if complaint == .locked { throw .recoverable(.unlockRequired) }
        let listed = !outcome.output.isEmpty
            || String(decoding: outcome.errorOutput, as: UTF8.self).split(whereSeparator: \.isNewline)
                .contains(where: SecretToolComplaint.isListing)
        if !listed { return }
        // An item that is not locked, yet `lookup` gave no key: it holds something else.
        throw foreignItem
    }

    private var foreignItem: VersolaError {
        .configuration(
            .invalidConfiguration(
                "the Secret Service item 'application versola profile \(profile)' is not a Versola key; "
                    + "remove it (secret-tool clear -- application versola profile \(profile)) to start afresh"))
    }

    private func run(_ tool: URL, _ arguments: [String], input: [UInt8] = []) async throws(VersolaError)
        -> ChildProcess.Outcome
    {
        guard let outcome = await ChildProcess.run(tool, arguments: arguments, input: input, environment: toolEnvironment)
        else { throw SecretToolComplaint.missingTool }
        return outcome
    }
}
