import Versola
import VersolaHTTP

/// The lines `versola login` adds while it waits: which token binding it chose (A11), and,
/// when the browser has not come back after a while, what to check at the provider.
enum LoginNotes {
    /// How long the waiting line waits before it adds ``waitingHint(redirectURI:fixedPort:)``.
    static let hintAfterSeconds: Int64 = 20

    /// Which tokens the login asks for and why, for the terminal.
    static func dpopLine(mode: DPoPMode, usesDPoP: Bool) -> String {
        switch (mode, usesDPoP) {
        case (.off, _): "Tokens: Bearer (--dpop off).\n"
        case (_, true): "Tokens: DPoP-bound (the provider advertises ES256; --dpop off for Bearer).\n"
        case (_, false): "Tokens: Bearer (the provider does not advertise DPoP).\n"
        }
    }

    /// The hint the waiting line adds once `waited` reaches ``hintAfterSeconds``, on a line of
    /// its own above it (so the redrawn line stays short enough not to wrap); nil before, or
    /// when there is no redirect URI.
    static func dueHint(waited: Int64, redirectURI: String?, fixedPort: Bool) -> String? {
        guard waited >= hintAfterSeconds, let redirectURI else { return nil }
        return "No answer from the browser yet: "
            + waitingHint(redirectURI: redirectURI, fixedPort: fixedPort) + ".\n"
    }

    /// If the provider showed a redirect URI error: it matches the port too, so the client needs
    /// a fixed port and that exact URI registered.
    static func waitingHint(redirectURI: String, fixedPort: Bool) -> String {
        guard !fixedPort, let port = port(of: redirectURI) else {
            return "if the provider shows a redirect URI error, register exactly \(redirectURI) for this client"
        }
        return "if the provider shows a redirect URI error, it needs an exact port: register \(redirectURI) "
            + "and log in again with --port \(port)"
    }

    /// The port of a loopback redirect URI (`http://127.0.0.1:PORT/path`).
    static func port(of redirectURI: String) -> String? {
        guard let afterScheme = redirectURI.range(of: "://") else { return nil }
        let rest = redirectURI[afterScheme.upperBound...]
        let authority = rest.prefix { $0 != "/" }
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        let port = authority[authority.index(after: colon)...]
        return !port.isEmpty && port.allSatisfy(\.isNumber) ? String(port) : nil
    }
}
