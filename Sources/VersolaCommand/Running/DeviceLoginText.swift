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
        if let complete = prompt.verificationURIComplete {
            text += "Or open this page, which already holds the code:\n"
            text += "  \(TerminalText.visible(complete))\n"
        }
        text += "The code expires \(expiry(prompt.expiresAt, now: now)). Waiting here for the approval; Ctrl-C cancels.\n"
        return text
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
