import Foundation

/// What a failed `secret-tool` run means, read from what it wrote on standard error (it runs
/// with `LC_ALL=C`, so the words are GLib's and libsecret's English ones).
///
/// Only a locked keyring is `.recoverable(.unlockRequired)` (S10): unlocking fixes it and
/// nothing stored is lost meanwhile. A missing session bus, a bus without a Secret Service, a
/// missing `secret-tool` and anything else the tool complains about are
/// `.configuration(.invalidConfiguration)` saying what to install or set: waiting does not fix them.
enum SecretToolComplaint: Sendable, Hashable {
    /// The collection holding the key is locked, or its unlock prompt was dismissed or could not be shown.
    case locked
    /// No D-Bus session bus could be reached.
    case noSessionBus(said: String)
    /// The session bus has no Secret Service (no keyring daemon runs or can be started).
    case noSecretService(said: String)
    /// Anything else, in the tool's words.
    case other(said: String)

    /// Reads a run's standard error; nil when it holds no complaint (`secret-tool search` also
    /// writes the attributes of the items it lists there, as `name = value` lines).
    init?(errorOutput: [UInt8]) {
        let lines = String(decoding: errorOutput, as: UTF8.self).split(whereSeparator: \.isNewline)
            .filter { !$0.allSatisfy(\.isWhitespace) && !Self.isListing($0) }
        guard let first = lines.first else { return nil }
        let lowered = lines.joined(separator: "\n").lowercased()
        let said = Self.cleaned(first)
        if ["locked object", "locked collection", "is locked", "dismissed", "prompt"].contains(where: lowered.contains) {
            self = .locked
        } else if ["autolaunch", "could not connect", "dbus-launch", "dbus_session_bus_address", "failed to connect"]
            .contains(where: lowered.contains)
        {
            self = .noSessionBus(said: said)
        } else if ["not provided by any .service files", "serviceunknown", "org.freedesktop.secrets"].contains(where: lowered.contains) {
            self = .noSecretService(said: said)
        } else {
            self = .other(said: said)
        }
    }

    /// The error a key source throws for it; `action` says what was attempted (`read`, `store`).
    func error(action: String) -> VersolaError {
        switch self {
        case .locked:
            return .recoverable(.unlockRequired)
        case .noSessionBus(let said):
            return .configuration(
                .invalidConfiguration(
                    "the Secret Service cannot be reached: there is no D-Bus session bus (secret-tool: \(said)); "
                        + "run inside a desktop session, or set DBUS_SESSION_BUS_ADDRESS (dbus-run-session starts a bus), "
                        + "or keep the key in a file instead (versola login --key-source file)"))
        case .noSecretService(let said):
            return .configuration(
                .invalidConfiguration(
                    "no Secret Service answers on the D-Bus session bus (secret-tool: \(said)); start the desktop's keyring, "
                        + "or install one (Debian and Ubuntu: apt install gnome-keyring), "
                        + "or keep the key in a file instead (versola login --key-source file)"))
        case .other(let said):
            return .configuration(
                .invalidConfiguration(
                    "secret-tool could not \(action) the session key in the Secret Service (\(said.isEmpty ? "it said nothing" : said))"))
        }
    }

    /// The error for a `secret-tool` that is not installed or cannot be started.
    static let missingTool = VersolaError.configuration(
        .invalidConfiguration(
            "secret-tool, which reaches the Secret Service, is not installed: install it "
                + "(Debian and Ubuntu: apt install libsecret-tools), "
                + "or keep the key in a file instead (versola login --key-source file)"))

    /// Whether `line` is part of an item listing (`attribute.profile = work`), not a complaint.
    static func isListing(_ line: Substring) -> Bool {
        line.hasPrefix("attribute.") || line.hasPrefix("[/") || line.contains(" = ")
    }

    /// `line` without the `secret-tool: ` prefix, at most 200 characters.
    private static func cleaned(_ line: Substring) -> String {
        let trimmed = line.hasPrefix("secret-tool: ") ? line.dropFirst("secret-tool: ".count) : line
        return String(trimmed.prefix(200))
    }
}
