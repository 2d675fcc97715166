import VersolaHTTP
/// The pages the loopback listener answers with (L6): short HTML saying what happened in
/// words (never a code or a token), each sent so that the browser neither keeps it
/// (`Cache-Control: no-store`), nor tells another site where it came from
/// (`Referrer-Policy: no-referrer`), nor shows it inside another page (`X-Frame-Options: DENY`).
enum LoopbackPage {
    /// The fields every answer of the listener carries.
    static let protectiveHeaders: [(String, String)] = [
        ("Cache-Control", "no-store"),
        ("Pragma", "no-cache"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("X-Content-Type-Options", "nosniff"),
        ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"),
    ]

    /// The sign-in response was taken.
    static let received = page(
        status: 200, title: "Signed in",
        text: "You are signed in. You can close this window and return to your application.")

    /// The provider's error response was taken: what it means, in words.
    static func refused(_ code: String) -> HTTPServerResponse {
        let reason: String
        switch code {
        case "access_denied": reason = "The sign-in was cancelled or refused."
        case "login_required", "interaction_required", "consent_required", "account_selection_required":
            reason = "The provider needs you to sign in interactively."
        default: reason = "The provider could not complete the sign-in."
        }
        return page(
            status: 200, title: "Sign-in not completed",
            text: reason + " You can close this window and return to your application.")
    }

    /// The one answer of a ``OneTimeRedirect``: on to `target`, the connection closed after it.
    static func redirect(to target: String) -> HTTPServerResponse {
        var headers = HTTPHeaders()
        headers.add("Location", target)
        headers.add("Connection", "close")
        for (name, value) in protectiveHeaders { headers.add(name, value) }
        return HTTPServerResponse(status: 303, headers: headers)
    }

    /// A ``OneTimeRedirect`` already used.
    static let used = page(
        status: 410, title: "Already opened", text: "This address worked once and has done its work. You can close this window.")

    /// A request on another path.
    static let notFound = page(status: 404, title: "Not found", text: "This address only receives a sign-in response.")

    /// A connection from a process of another local user (L8): nothing is taken from it.
    static let otherUser = page(
        status: 403, title: "Not yours",
        text: "This address belongs to a sign-in of another user of this computer. Nothing was done.")

    /// A request whose `Host` is not the listener's address and port.
    static let wrongHost = page(
        status: 421, title: "Wrong address", text: "This sign-in listener only answers requests made to its own address.")

    /// A redirect the listener did not take; the sign-in in progress goes on waiting.
    static func page(for refusal: RedirectRefusal) -> HTTPServerResponse {
        switch refusal {
        case .notAResponse:
            page(status: 400, title: "Not a sign-in response", text: "This address only receives a sign-in response.")
        case .otherRequest:
            page(
                status: 400, title: "Sign-in response not recognised",
                text: "This response does not belong to the sign-in in progress, which is still waiting. "
                    + "Start the sign-in again from your application if you did not expect this page.")
        case .alreadyFinished, .noLoginWaiting:
            page(
                status: 400, title: "Sign-in already completed",
                text: "This sign-in already has its response. You can close this window.")
        }
    }

    private static func page(status: Int, title: String, text: String) -> HTTPServerResponse {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(title)</title>
            <style>body{font-family:sans-serif;max-width:32rem;margin:4rem auto;text-align:center}</style></head>
            <body><h1>\(title)</h1><p>\(text)</p></body></html>
            """
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/html; charset=utf-8")
        for (name, value) in protectiveHeaders { headers.add(name, value) }
        return HTTPServerResponse(
            status: status, reason: status == 421 ? "Misdirected Request" : nil, headers: headers, body: Array(html.utf8))
    }
}
