import VersolaJOSE

/// Human-readable renderings of status, claims and verification results. Every value that
/// came from the provider goes through ``TerminalText/visible(_:)`` (L5).
enum StatusOutput {
    /// `default: authenticated as Alice <alice@example.com> (sub alice) at https://…`.
    static func text(_ status: JSONValue, color: Bool) -> String {
        let profile = TerminalText.visible(status["profile"]?.string ?? "?")
        let state = TerminalText.visible(status["state"]?.string ?? "?")
        let signedIn = status["signedIn"]?.bool ?? false
        var line = "\(profile): " + paint(state, code: signedIn ? "32" : "33", color: color)
        if let user = status["user"], !user.isNull {
            var who = user["name"]?.string ?? user["subject"]?.string ?? "?"
            if let email = user["email"]?.string { who += " <\(email)>" }
            line += " as \(TerminalText.visible(who)) (sub \(TerminalText.visible(user["subject"]?.string ?? "?")))"
        }
        if let issuer = status["issuer"]?.string { line += " at \(TerminalText.visible(issuer))" }
        if status["renewable"]?.bool == false {
            // P13: the session ends with its access token.
            let end = status["endsAt"]?.string.map { "ends at \(TerminalText.visible($0))" } ?? "does not expire"
            line += "\n  no refresh token; \(end)"
        }
        if let problem = status["problem"]?.string { line += "\n  the stored session cannot be read: \(TerminalText.visible(problem))" }
        for case .string(let path) in status["setAside"]?.array ?? [] {
            line += "\n  an earlier record that no longer decrypted was moved aside to \(TerminalText.visible(path))"
                + " (user-only; delete it when it is not needed)"
        }
        return line + "\n"
    }

    /// One `name: value` line per claim.
    static func claimsText(_ claims: JSONValue) -> String {
        guard let object = claims.object else { return claims.serialized() + "\n" }
        return object.map { member in
            TerminalText.visible(member.name) + ": "
                + TerminalText.visible(member.value.string ?? member.value.serialized()) + "\n"
        }.joined()
    }

    /// `valid: …` and the main claims.
    static func verifiedText(_ result: JSONValue) -> String {
        var text = "valid token from \(result["issuer"]?.string ?? "?")"
        if let subject = result["subject"]?.string { text += " for sub \(subject)" }
        if let key = result["keyID"]?.string { text += ", key \(key)" }
        if let algorithm = result["algorithm"]?.string { text += ", \(algorithm)" }
        if let expires = result["expiresAt"]?.string { text += ", expires \(expires)" }
        return TerminalText.visible(text) + "\n"
    }

    static func paint(_ text: String, code: String, color: Bool) -> String {
        color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
