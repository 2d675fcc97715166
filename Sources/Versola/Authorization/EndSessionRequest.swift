import VersolaHTTP
import Foundation

/// The address of the provider's end-session page for RP-initiated logout (OpenID Connect
/// RP-Initiated Logout 1.0 §2, A15), built without any I/O.
///
/// The query carries `id_token_hint` (the session's ID token, so the provider knows whom to
/// sign out without asking), `client_id`, and `post_logout_redirect_uri` only when the
/// configuration names one (it must be registered at the provider). Parameters already in
/// the endpoint's own query are kept.
///
/// ``url`` holds the ID token: it is never put on a command line, printed or logged. A
/// browser reaches it through a ``OneTimeRedirect``; ``shareableURL`` (the same without
/// `id_token_hint`, which RP-Initiated Logout allows with `client_id`) is the one to show.
///
/// ```swift
/// let request = try EndSessionRequest(metadata: metadata, idToken: grant.idToken, configuration: configuration)
/// if !(await OneTimeRedirect.open(request.url, in: browser, random: SystemRandomSource(), clock: SystemClock())) {
///     print("To sign out at the provider too, open:", request.shareableURL)
/// }
/// ```
public struct EndSessionRequest: Sendable, Hashable {
    /// The full address, with the ID token: for a browser through a ``OneTimeRedirect`` only.
    public let url: String
    /// The address without `id_token_hint`: safe to show, print or pass on a command line.
    public let shareableURL: String

    /// Builds the end-session address.
    /// - Parameters:
    ///   - metadata: the provider's discovery document.
    ///   - idToken: the raw ID token of the session being ended, when it has one.
    ///   - configuration: supplies `client_id` and the optional ``ClientConfiguration/postLogoutRedirectURI``.
    /// - Throws: `.configuration(.providerUnsupported)` when the provider publishes no
    ///   `end_session_endpoint`: it offers no RP-initiated logout, and only the local sign-out happened.
    public init(metadata: ProviderMetadata, idToken: String?, configuration: ClientConfiguration) throws(VersolaError) {
        guard let endpoint = metadata.endSessionEndpoint else {
            throw .configuration(
                .providerUnsupported(
                    "the provider publishes no end_session_endpoint, so it cannot be asked to end its own session;"
                        + " the local session was signed out"))
        }
        var fields: [FormBody.Field] = [FormBody.Field(name: "client_id", value: configuration.clientID)]
        if let redirect = configuration.postLogoutRedirectURI {
            fields.append(FormBody.Field(name: "post_logout_redirect_uri", value: redirect))
        }
        var base = endpoint.absoluteString
        if let hash = base.firstIndex(of: "#") { base = String(base[..<hash]) }
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        shareableURL = base + separator + FormBody(fields).encodedString
        if let idToken { fields.insert(FormBody.Field(name: "id_token_hint", value: idToken), at: 0) }
        url = base + separator + FormBody(fields).encodedString
    }
}
