import VersolaHTTP
/// Why the loopback listener did not take a redirect (A4, L6); the wait goes on unless it
/// had already ended.
public enum RedirectRefusal: Sendable, Hashable, CustomStringConvertible {
    /// It carries neither a `code` nor an `error`: not an authorization response at all.
    case notAResponse
    /// Its `state` is not the one of the sign-in in progress (forged, stale, or missing).
    case otherRequest
    /// The wait already has its redirect, or ended.
    case alreadyFinished
    /// No login is waiting for a redirect here (``OpenIDClient/offerRedirect(_:)``).
    case noLoginWaiting

    /// A sentence for the person.
    public var description: String {
        switch self {
        case .notAResponse: "that address is not a sign-in response (it has neither a code nor an error)"
        case .otherRequest: "that sign-in response belongs to another sign-in (its state does not match)"
        case .alreadyFinished: "the sign-in already has its response"
        case .noLoginWaiting: "no sign-in is waiting for a response"
        }
    }
}
