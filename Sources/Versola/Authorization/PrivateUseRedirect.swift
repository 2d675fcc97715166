import VersolaHTTP
import Foundation

/// A private-use URI scheme redirect (RFC 8252 §7.1, L7): the provider sends the browser to
/// `com.example.app:/callback`, the desktop opens whatever is registered for
/// `x-scheme-handler/com.example.app` (see ``SchemeHandlerEntry``), and that program hands the
/// URL to the waiting login (`versola handle-redirect URL`, or the application's own entry
/// point calling ``Session/deliverRedirect(_:)``).
///
/// The scheme must be a reverse domain name the application controls: letters, digits, `+`,
/// `-` and `.` (RFC 3986), starting with a letter, at least one dot, no empty label, never
/// `http` or `https`. The URI has a path (`:/…`, one slash: there is no naming authority),
/// and no query or fragment.
///
/// ```swift
/// var configuration = ClientConfiguration(issuer: "https://login.example.com", clientID: "my-app")
/// configuration.privateUseRedirect = try PrivateUseRedirect("com.example.app:/callback")
/// ```
public struct PrivateUseRedirect: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, e.g. `com.example.app`.
    public let scheme: String
    /// The path, e.g. `/callback`.
    public let path: String

    /// Parses and checks a private-use redirect URI.
    /// - Throws: `.configuration(.invalidConfiguration)` saying what is wrong with it.
    public init(_ uri: String) throws(VersolaError) {
        guard let colon = uri.firstIndex(of: ":") else {
            throw Self.refusal("\(uri) has no scheme; write it as com.example.app:/callback")
        }
        let scheme = String(uri[..<colon])
        let path = String(uri[uri.index(after: colon)...])
        try Self.check(scheme: scheme)
        guard path.hasPrefix("/"), !path.hasPrefix("//") else {
            throw Self.refusal("\(uri) must go on with one slash and a path after the scheme, as in \(scheme):/callback")
        }
        guard !path.contains("?"), !path.contains("#"), !path.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw Self.refusal("the path of \(uri) must have no query, fragment or blanks")
        }
        self.scheme = scheme
        self.path = path
    }

    /// The redirect URI sent to the provider, e.g. `com.example.app:/callback`.
    public var uri: String { scheme + ":" + path }

    public var description: String { uri }

    /// The MIME type a desktop entry registers for this scheme: `x-scheme-handler/<scheme>`.
    public var mimeType: String { "x-scheme-handler/" + scheme }

    /// Whether `url` is a redirect to this URI (same scheme, case-insensitively, and path).
    public func matches(_ url: String) -> Bool {
        guard let colon = url.firstIndex(of: ":"), url[..<colon].lowercased() == scheme else { return false }
        var rest = url[url.index(after: colon)...]
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        return rest == path
    }

    /// RFC 8252 §7.1 and RFC 3986 §3.1: a lower-case reverse domain name, not http(s).
    private static func check(scheme: String) throws(VersolaError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789+-.")
        guard !scheme.isEmpty, scheme.allSatisfy({ allowed.contains($0) }), scheme.first?.isLetter == true else {
            throw refusal(
                "the scheme \(scheme) must be lower-case letters, digits, +, - and dots, starting with a letter (RFC 3986)")
        }
        guard scheme != "http", scheme != "https" else {
            throw refusal("a private-use redirect cannot use \(scheme); for http use the loopback redirect instead")
        }
        let labels = scheme.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }) else {
            throw refusal(
                "the scheme \(scheme) must be a reverse domain name you control, with a dot (RFC 8252 §7.1), e.g. com.example.app")
        }
    }

    private static func refusal(_ text: String) -> VersolaError {
        .configuration(.invalidConfiguration("private-use redirect: " + text))
    }
}

/// The wait of a login whose redirect comes through a private-use scheme (L7): nothing
/// listens; the redirect is handed in with ``OpenIDClient/offerRedirect(_:)`` by the
/// application, or the login is finished by another process that completes the persisted
/// pending request (L2), which the session sees through its profile watcher.
final class PrivateUseRedirectReceiver: RedirectReceiver {
    let redirectURI: String
    private let redirect: PrivateUseRedirect
    private let wait = RedirectWait()

    init(_ redirect: PrivateUseRedirect) {
        self.redirect = redirect
        self.redirectURI = redirect.uri
    }

    func expect(state: String) { wait.expect(state: state) }

    func offer(_ redirectURL: String) -> RedirectRefusal? {
        guard redirect.matches(redirectURL) else { return .notAResponse }
        return wait.offer(redirectURL)
    }

    func cancel() { wait.finish(.recoverable(.userCancelled)) }

    func waitForRedirect(timeout: Duration, clock: any VersolaClock) async throws(VersolaError) -> AuthorizationRedirect {
        try await wait.wait(timeout: timeout, clock: clock)
    }

    func stop() async {}
}

extension LoopbackListener: RedirectReceiver {}
