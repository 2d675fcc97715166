/// The provider's minimal HTML: a sign-in form for a real browser, and message pages.
enum LoginPage {
    static func form(ticket: String, action: String, message: String?) -> String {
        let notice = message.map { "<p class=\"error\">\(escape($0))</p>" } ?? ""
        return page(
            title: "Sign in to the Versola test provider",
            body: """
                \(notice)
                <form method="post" action="\(escape(action))">
                  <input type="hidden" name="ticket" value="\(escape(ticket))">
                  <label>User name <input name="username" autocomplete="username" autofocus></label>
                  <label>Password <input name="password" type="password" autocomplete="current-password"></label>
                  <button name="decision" value="allow">Sign in</button>
                  <button name="decision" value="deny">Cancel</button>
                </form>
                <p class="hint">The test user is <code>alice</code> with password <code>wonderland</code>.</p>
                """)
    }

    /// The device verification page without a code: a field to type the user code in.
    static func userCodeForm(action: String) -> String {
        page(
            title: "Sign in a device",
            body: """
                <form method="get" action="\(escape(action))">
                  <label>Code shown on your device <input name="user_code" autocomplete="off" autofocus></label>
                  <button>Continue</button>
                </form>
                """)
    }

    static func message(_ text: String) -> String {
        page(title: "Versola test provider", body: "<p>\(escape(text))</p>")
    }

    private static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
        <style>body{font-family:sans-serif;max-width:28rem;margin:4rem auto}label{display:block;margin:.6rem 0}
        .error{color:#b00}.hint{color:#666;font-size:.9rem}</style></head>
        <body><h1>\(escape(title))</h1>
        \(body)
        </body></html>
        """
    }

    static func escape(_ text: String) -> String {
        var output = ""
        for character in text {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            default: output.append(character)
            }
        }
        return output
    }
}
