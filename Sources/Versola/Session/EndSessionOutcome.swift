import VersolaHTTP
/// What became of the provider's end-session page at logout (A15). The local sign-out has
/// happened whatever this says.
public enum EndSessionOutcome: Sendable, Hashable {
    /// The browser was started with this address.
    case opened(url: String)
    /// No browser could be started: show the address so the person can open it.
    case notOpened(url: String)
    /// The page cannot be opened: the provider publishes no `end_session_endpoint`, or its
    /// discovery document could not be read.
    case unavailable(VersolaError)
}
