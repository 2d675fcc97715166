import Versola

/// The manual page `versola.1` (roff, man macros), generated from ``CommandTable``.
public enum ManPage {
    /// The whole page.
    public static var text: String {
        var page = [
            ".TH VERSOLA 1 \"\" \"versola \(VersolaVersion.current)\" \"User Commands\"",
            ".SH NAME",
            "versola \\- sign in to an OpenID Connect provider from a terminal and hand tokens to other tools",
            ".SH SYNOPSIS",
            ".B versola",
            ".I command",
            "[\\fIoptions\\fR]",
            ".SH DESCRIPTION",
            escaped("Signs in through the browser, keeps the session (refreshing tokens in a per-user agent) "
                + "and hands tokens to other tools: scripts, curl, kubectl and git."),
            ".SH COMMANDS",
        ]
        for spec in CommandTable.commands {
            page.append(".SS \(escaped(spec.name.rawValue))")
            page.append(".B versola \(escaped(spec.name.rawValue))")
            page.append(escaped(HelpText.synopsis(of: spec)))
            page.append(".PP")
            page.append(escaped(spec.details.split(separator: "\n").joined(separator: " ")))
            for flag in spec.flags { page += item(flag) }
        }
        page.append(".SH GLOBAL OPTIONS")
        for flag in CommandTable.globalFlags { page += item(flag) }
        page += [
            ".SH ENVIRONMENT",
            ".TP", ".B VERSOLA_PROFILE", escaped("the profile used when --profile is not given"),
            ".TP", ".B VERSOLA_NO_AGENT", escaped("1 runs every command without the session agent"),
            ".TP", ".B NO_COLOR", escaped("disables colour"),
            ".TP", ".B BROWSER", escaped("the browser login opens when --browser-command is not given"),
            ".TP", ".B VERSOLA_SIGN_IN_WAIT",
            escaped("seconds a command waits for a sign-in another process runs for the profile (default 600)"),
            ".SH EXIT STATUS",
            escaped("0 success, 1 signed out (status), 2 usage, 3 try again later, 4 sign in again, "
                + "5 step-up needed, 6 configuration, 22 HTTP error (request --fail)."),
            ".SH SEE ALSO",
            "\\fBgit\\-credential\\fR(1), \\fBgitcredentials\\fR(7)",
        ]
        return page.joined(separator: "\n") + "\n"
    }

    /// A `.TP` paragraph for `flag`.
    private static func item(_ flag: FlagSpec) -> [String] {
        let names = flag.names.map { "\\fB\(escaped($0))\\fR" }.joined(separator: ", ")
        let value = flag.value.map { " \\fI\(escaped($0))\\fR" } ?? ""
        return [".TP", names + value, escaped(flag.help)]
    }

    /// `text` safe in a roff line: backslashes and dashes escaped, no line starting a request.
    static func escaped(_ text: String) -> String {
        let body = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        return body.hasPrefix(".") || body.hasPrefix("'") ? "\\&" + body : body
    }
}
