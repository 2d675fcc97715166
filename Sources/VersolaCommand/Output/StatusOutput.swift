import VersolaJOSE

/// Human-readable renderings of status, claims and verification results. Every value that
/// came from the provider goes through ``TerminalText/visible(_:)`` (L5).
enum StatusOutput {
    /// `default: authenticated as Alice <alice@example.com> (sub alice) at https://…`.
    static func text(_ status: AgentStatus, color: Bool) -> String {
        let profile = TerminalText.visible(status.profile)
        let state = TerminalText.visible(status.state.rawValue)
        var line = "\(profile): " + paint(state, code: status.signedIn ? "32" : "33", color: color)
        if let user = status.user {
            var who = user.name ?? user.subject
            if let email = user.email { who += " <\(email)>" }
            line += " as \(TerminalText.visible(who)) (sub \(TerminalText.visible(user.subject)))"
        }
        if let issuer = status.issuer { line += " at \(TerminalText.visible(issuer))" }
        switch status.lifetime {
        // P13: the session ends with its access token.
        case .endsAt(let end)?: line += "\n  no refresh token; ends at \(TerminalText.visible(end))"
        case .unbounded?: line += "\n  no refresh token; does not expire"
        case .renewable?, nil: break
        }
        if let problem = status.problem { line += "\n  the stored session cannot be read: \(TerminalText.visible(problem))" }
        for path in status.setAside {
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
