import Foundation
import Versola
import VersolaHTTP

/// What `versola login` says on standard error for a sign-in on another device (A14): the
/// page to open, the code to enter there, and how long the code works. Everything that came
/// from the provider is shown with its control characters made visible (L5).
enum DeviceLoginText {
    /// The lines shown once the provider gave a code.
    /// - Parameters:
    ///   - prompt: the code and pages.
    ///   - now: the time, for "expires in".
    static func prompt(_ prompt: DeviceAuthorizationPrompt, now: Date = Date()) -> String {
        var text = prompt.resumed ? "Going on with the sign-in started earlier; the code is the same.\n" : ""
        text += "To sign in, open this page on any device with a browser:\n"
        text += "  \(TerminalText.visible(prompt.verificationURI))\n"
        text += "and enter the code:\n"
        text += "  \(TerminalText.visible(prompt.userCode))\n"
        switch completePage(prompt) {
        case .shown(let complete):
            text += "Or open this page, which already holds the code:\n"
            text += "  \(TerminalText.visible(complete))\n"
        case .otherHost(let host):
            text += "(The provider also named a page holding the code on another host, \(TerminalText.visible(host)), "
            text += "than the page above; it is not shown: use the page above.)\n"
        case .notHTTPS:
            text += "(The provider also named a page holding the code that is not https; it is not shown.)\n"
        case nil:
            break
        }
        text += "The code expires \(expiry(prompt.expiresAt, now: now)). Waiting here for the approval; Ctrl-C cancels.\n"
        return text
    }

    /// The QR code of the page to open (the one holding the code when it is shown, else
    /// `verification_uri`), for a terminal whose locale is UTF-8 (`LC_ALL`, `LC_CTYPE`, `LANG`);
    /// nil without libqrencode, or for a code too wide for 80 columns.
    static func qrCode(_ prompt: DeviceAuthorizationPrompt, environment: [String: String]) -> String? {
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        guard locale.lowercased().replacingOccurrences(of: "-", with: "").contains("utf8") else { return nil }
        var page = prompt.verificationURI
        if case .shown(let complete) = completePage(prompt) { page = complete }
        guard let lines = TerminalQRCode.lines(for: page) else { return nil }
        return lines.map { "  " + $0 + "\n" }.joined()
    }

    /// What becomes of the provider's `verification_uri_complete`.
    enum CompletePage: Equatable {
        /// An https page (http only on loopback) on the host of `verification_uri`.
        case shown(String)
        /// A page on another host than `verification_uri` (named): a provider's answer could
        /// send the person to a look-alike that asks for their password.
        case otherHost(String)
        /// Not https (`javascript:`, `http:`, `data:` …): never shown.
        case notHTTPS
    }

    /// Whether the page that holds the code is shown: only https (plain http only on
    /// loopback) and only on the host of `verification_uri`. Nil when there is none.
    static func completePage(_ prompt: DeviceAuthorizationPrompt) -> CompletePage? {
        guard let complete = prompt.verificationURIComplete else { return nil }
        guard let url = URL(string: complete), let origin = Origin(url: url),
            origin.scheme == "https" || (origin.scheme == "http" && origin.isLoopback)
        else { return .notHTTPS }
        let main = URL(string: prompt.verificationURI).flatMap { Origin(url: $0) }
        guard let main, main.host.lowercased() == origin.host.lowercased() else { return .otherHost(origin.host) }
        return .shown(complete)
    }

    /// Why the device flow was chosen without `--device`.
    static let chosenWithoutBrowser =
        "No browser can be started here (no $BROWSER, no display, no --browser-command): signing in with a code "
        + "on another device instead (--no-browser to paste the redirect of a browser sign-in instead).\n"

    /// `in 10 minutes`, `in 45 seconds`.
    static func expiry(_ expiresAt: Date, now: Date) -> String {
        let seconds = max(0, Int(expiresAt.timeIntervalSince(now).rounded()))
        if seconds >= 120 { return "in \(seconds / 60) minutes" }
        return seconds == 1 ? "in 1 second" : "in \(seconds) seconds"
    }

    /// The device flow sends none of these: they are refused with `--device` rather than dropped.
    static func ignoredFlags(_ options: LoginOptions) -> [String] {
        var flags: [String] = []
        if !options.acrValues.isEmpty { flags.append("--acr-values") }
        if options.maxAge != nil { flags.append("--max-age") }
        if options.loginHint != nil { flags.append("--login-hint") }
        if options.prompt != nil { flags.append("--prompt") }
        return flags
    }
}
