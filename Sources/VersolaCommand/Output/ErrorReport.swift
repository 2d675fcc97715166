import Versola
import VersolaHTTP
import VersolaJOSE

/// The one place that turns a failure into what the person or script sees: the exit status,
/// a line on standard error, or with `--json` the E13 object
/// `{"error":{"category":…,"cause":…,…}}` (also on standard error).
///
/// Nothing here prints a token, code, verifier or key: ``VersolaError``'s descriptions hold none.
/// The sentence is passed through ``TerminalText/visible(_:)`` (it carries provider text), and
/// the advice's command line quotes each value with ``ShellWord`` (L5).
public enum ErrorReport {
    /// The text written to standard error for `failure`.
    /// - Parameters:
    ///   - json: write the E13 JSON object instead of a sentence.
    ///   - profile: named in the advice to sign in again.
    public static func render(_ failure: CommandFailure, json: Bool, profile: String = "default") -> String {
        if json { return object(for: failure).serialized() + "\n" }
        switch failure {
        case .usage(let error):
            return "versola: \(TerminalText.visible(error.message))\n\(HelpText.usageLine(for: error.command))\n"
        case .versola(let error):
            // Provider text (error codes, descriptions, issuers) reaches the terminal made visible (L5).
            return "versola: \(TerminalText.visible(sentence(for: error, profile: profile)))\n"
        }
    }

    /// The E13 object for `failure`.
    public static func object(for failure: CommandFailure) -> JSONValue {
        switch failure {
        case .usage(let error):
            return ["error": ["category": "usage", "cause": "usage", "message": .string(error.message)]]
        case .versola(let error):
            return ["error": .object(AgentErrorBody(error).members)]
        }
    }

    /// A sentence saying what happened and what to do, in plain words: the internal case names
    /// (`systemCancelled`, `invalidConfiguration`, …) appear only in the JSON object.
    public static func sentence(for error: VersolaError, profile: String) -> String {
        let flag = profile == "default" ? "" : " --profile \(ShellWord.quoted(profile))"
        switch error {
        case .recoverable(.userCancelled):
            return "sign-in cancelled; nothing changed"
        case .recoverable(.unlockRequired):
            return "the session is locked (its passphrase was not given or not right, or the keyring holding its key "
                + "is locked); nothing was lost. Unlock it: versola unlock\(flag)"
        case .recoverable(.server(let failure)):
            var text = "the provider answered \(failure.status) (\(failure.failedRequests) failed request(s))"
            if let said = failure.providerError { text += ": \(quoted(said))" }
            if let wait = failure.retryAfter { text += "; it asks to wait \(wholeSeconds(wait)) s" }
            return text + "; try again later"
        case .recoverable(.network(let failure)):
            return networkSentence(failure)
        case .recoverable(.signingKeyUnavailable(let wait)):
            return "the provider signed with a key it does not publish yet; try again in \(wholeSeconds(wait)) s"
        case .recoverable(.storageUnavailable(let reason)):
            return "the session could not be stored (\(reason)); it is kept in memory. "
                + "Free some disk space or fix the directory, then try again"
        case .recoverable(.systemCancelled):
            return "the sign-in was interrupted before it finished; nothing changed. Run the command again"
        case .recoverable(.pendingRequestExpired):
            return "no sign-in is waiting for this (its request expired, or it was finished or cancelled); "
                + "start again: versola login\(flag)"
        case .recoverable(.nonceLoop):
            return "the provider kept asking for a fresh DPoP nonce; try again later"
        case .reauthenticate(let reason):
            return "\(plainWords(reason)); sign in again: versola login\(flag)"
        case .stepUp(let challenge):
            var advice = "versola login\(flag)"
            // A command line to copy: every value quoted for the shell (L5).
            if !challenge.acrValues.isEmpty {
                advice += " --acr-values " + ShellWord.quoted(challenge.acrValues.joined(separator: " "))
            }
            if let maxAge = challenge.maxAge { advice += " --max-age \(maxAge)" }
            // A20: the held scopes and the ones the resource named, each its own flag.
            for scope in challenge.scopes { advice += " --scope " + ShellWord.quoted(scope) }
            let wants = challenge.scopes.isEmpty ? "a stronger sign-in" : "more scope (insufficient_scope)"
            return "the resource asks for \(wants): \(advice)"
        case .configuration(let detail):
            var text = plainWords(detail)
            if let said = detail.providerError { text += "; the provider said \(quoted(said))" }
            return text
        }
    }

    /// Why the provider could not be reached, the likely mistake, and what to check; the
    /// failure's kind (`tls`, `couldNotConnect`, …) stays in the JSON object.
    static func networkSentence(_ failure: NetworkFailure) -> String {
        let origin = failure.origin
        switch failure.kind {
        case .couldNotResolve:
            return "could not find \(origin): the host name does not resolve; check the address (--issuer) and the network"
        case .couldNotConnect:
            return "could not connect to \(origin): nothing accepted the connection; check the address and port "
                + "(--issuer) and that the provider is running, then try again"
        case .failedAfterSending:
            return "the connection to \(origin) broke during the request; try again later"
        case .timedOut:
            return "\(origin) did not answer in time; try again later"
        case .tls:
            return "the secure (https) connection to \(origin) failed: if that server speaks plain http, the address "
                + "is wrong (check --issuer); otherwise its certificate is not trusted here"
        }
    }

    /// What happened to the grant, for the advice to sign in again.
    static func plainWords(_ reason: ReauthenticationReason) -> String {
        switch reason {
        case .authorizationDenied: "the sign-in was denied at the provider"
        case .interactionRequired: "the provider needs you to sign in at its page"
        case .credentialsInvalidated: "the saved credentials can no longer be used"
        case .grantRejected: "the provider no longer accepts this session"
        case .sessionRejected: "the provider ended this session"
        case .sessionExpired: "the session has expired"
        }
    }

    /// What is wrong with the setup, and where the reason says, what to change.
    static func plainWords(_ detail: ConfigurationDetail) -> String {
        switch detail {
        case .stateMismatch:
            "the redirect does not belong to the pending sign-in; start again with versola login"
        case .issuerMismatch:
            "the provider's answer names another issuer than the profile's; check --issuer"
        case .idTokenRejected(let rejection) where rejection.kind == .expired || rejection.kind == .notYetValid:
            "the provider's ID token was not accepted: \(rejection.detail); check that this computer's clock is right"
        case .idTokenRejected(let rejection):
            "the provider's ID token was not accepted: \(rejection.detail)"
        case .providerUnsupported(let reason, _):
            "the provider cannot be used as configured: \(reason)"
        case .invalidConfiguration(let reason, _):
            reason
        case .authorizationRejected(let reason, _):
            "the provider refused the sign-in: \(reason)"
        case .discoveryIssuerMismatch(let expected, let actual):
            "the provider's discovery document names issuer \(actual), not \(expected); check --issuer"
        }
    }

    /// What a provider said, as a sentence quotes it: `invalid_request ("consent in prompt")`.
    static func quoted(_ said: ProviderError) -> String {
        guard let description = said.errorDescription else { return said.code }
        return "\(said.code) (\"\(description)\")"
    }

    /// `duration` rounded up to whole seconds (a wait is never shortened).
    static func wholeSeconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return attoseconds > 0 ? seconds + 1 : seconds
    }

    /// `duration` in whole milliseconds.
    static func milliseconds(_ duration: Duration) -> Int64 { duration.wholeMilliseconds }
}
