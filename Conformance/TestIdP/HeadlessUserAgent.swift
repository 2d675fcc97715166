import Foundation
import VersolaHTTP

/// Plays the person in a browser, for tests and the demo: opens an authorization URL,
/// signs the test user in through the provider's form when one is shown, and follows the
/// redirects to wherever they lead (the app's loopback listener included).
///
/// ```swift
/// let agent = HeadlessUserAgent()
/// let landing = try await agent.complete(authorizationURL: url)   // the listener's answer
/// ```
public struct HeadlessUserAgent: Sendable {
    /// What the agent types into the sign-in form.
    public var username: String
    /// The password it types.
    public var password: String
    /// Press "Cancel" on the form instead of signing in.
    public var denies: Bool
    private let transport: any HTTPTransport

    /// Creates an agent that signs in as the test user.
    public init(
        username: String = TestUser().username, password: String = TestUser().password, denies: Bool = false,
        transport: any HTTPTransport = CurlTransport(idleHandles: 0)
    ) {
        self.username = username
        self.password = password
        self.denies = denies
        self.transport = transport
    }

    /// The last answer of the journey and the URLs visited.
    public struct Landing: Sendable {
        /// The final response (the loopback listener's page, usually).
        public var response: HTTPResponse
        /// Every URL requested, in order.
        public var visited: [String]
    }

    /// Follows the authorization journey from `authorizationURL` to its end.
    /// - Throws: ``HeadlessUserAgentError`` when a step cannot be taken.
    public func complete(authorizationURL: String) async throws(HeadlessUserAgentError) -> Landing {
        var visited: [String] = []
        var next = HTTPRequest(method: .get, url: try url(authorizationURL))
        for _ in 0..<10 {
            visited.append(next.url.absoluteString)
            let response: HTTPResponse
            do { response = try await transport.send(next, options: TransportOptions()) } catch {
                throw .transport(String(describing: error))
            }
            if (300..<400).contains(response.status), let location = response.headers["Location"] {
                guard let target = URL(string: location, relativeTo: next.url)?.absoluteURL else {
                    throw .badRedirect(location)
                }
                next = HTTPRequest(method: .get, url: target)
                continue
            }
            let page = String(decoding: response.body, as: UTF8.self)
            if response.status == 200, let form = LoginForm(page: page), visited.count < 9 {
                guard let action = URL(string: form.action, relativeTo: next.url)?.absoluteURL else {
                    throw .badRedirect(form.action)
                }
                let fields = [
                    ("ticket", form.ticket), ("username", username), ("password", password),
                    ("decision", denies ? "deny" : "allow"),
                ]
                next = HTTPRequest(
                    method: .post, url: action, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: Array(FormEncoding.encode(fields).utf8))
                continue
            }
            return Landing(response: response, visited: visited)
        }
        throw .tooManySteps
    }

    private func url(_ text: String) throws(HeadlessUserAgentError) -> URL {
        guard let url = URL(string: text), url.scheme != nil else { throw .badRedirect(text) }
        return url
    }
}

/// Why the headless journey stopped.
public enum HeadlessUserAgentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A request could not be sent.
    case transport(String)
    /// A `Location` or form action that is not a URL.
    case badRedirect(String)
    /// More than ten steps: a redirect loop.
    case tooManySteps

    public var description: String {
        switch self {
        case .transport(let detail): "headless user agent: \(detail)"
        case .badRedirect(let location): "headless user agent: cannot follow \(location)"
        case .tooManySteps: "headless user agent: redirect loop"
        }
    }
}

/// The provider's sign-in form, read from its HTML (only what the agent needs).
struct LoginForm {
    var action: String
    var ticket: String

    init?(page: String) {
        guard let action = Self.attribute("action", after: "<form", in: page),
            let ticket = Self.attribute("value", after: "name=\"ticket\"", in: page)
        else { return nil }
        self.action = Self.unescape(action)
        self.ticket = Self.unescape(ticket)
    }

    private static func attribute(_ name: String, after marker: String, in page: String) -> String? {
        guard let start = page.range(of: marker),
            let open = page.range(of: name + "=\"", range: start.upperBound..<page.endIndex),
            let close = page[open.upperBound...].firstIndex(of: "\"")
        else { return nil }
        return String(page[open.upperBound..<close])
    }

    private static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
