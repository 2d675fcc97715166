import VersolaHTTP
/// What became of the provider's end-session page at logout (A15). The local sign-out has
/// happened whatever this says.
public enum EndSessionOutcome: Sendable, Hashable {
    /// The browser was sent to the page through a ``OneTimeRedirect`` (it asked for it); the
    /// address without the ID token (``EndSessionRequest/shareableURL``).
    case opened(url: String)
    /// No browser could be started, or it did not ask for the page in time. Show the request's
    /// ``EndSessionRequest/shareableURL`` (never its `url`, which holds the ID token), or open
    /// its `url` through a ``OneTimeRedirect`` where a browser can be started.
    case notOpened(EndSessionRequest)
    /// The page cannot be opened: the provider publishes no `end_session_endpoint`, or its
    /// discovery document could not be read.
    case unavailable(VersolaError)
}
