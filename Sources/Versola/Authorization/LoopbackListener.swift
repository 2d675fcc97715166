import VersolaHTTP
import Foundation
import Synchronization

/// The loopback redirect listener of RFC 8252 §7.3 (A4, L6): binds `127.0.0.1` (or `[::1]`)
/// on an ephemeral or fixed port, builds the redirect URI from the address actually bound,
/// and completes the wait with exactly one authorization response: the one on its path whose
/// `state` is the one set with ``expect(state:)``.
///
/// Any other request leaves it waiting and gets an error page: another path, a response with
/// another `state` or none (a forged one, or a bare `?error=` from a web page), a second
/// response, and any request whose `Host` is not the address and port listened on (DNS
/// rebinding). Connections are bounded in time, and when many are open the oldest make room,
/// so idle or slow connections cannot keep the browser's out. Every page is sent with
/// `Cache-Control: no-store`, `Referrer-Policy: no-referrer` and `X-Frame-Options: DENY`, and
/// says what happened in words, never a secret.
///
/// A redirect may also be handed in from elsewhere (pasted by the person, or delivered by
/// another process, L2) with ``offer(_:)``; whichever valid one comes first wins.
///
/// ```swift
/// let listener = try LoopbackListener.start(LoopbackRedirect())
/// listener.expect(state: pending.state)
/// // open the browser on an authorization URL carrying listener.redirectURI …
/// let redirect = try await listener.waitForRedirect(timeout: .seconds(300), clock: SystemClock())
/// await listener.stop()
/// let grant = try await client.complete(redirect, pending: pending, issuerParameterRequired: false)
/// print("signed in as", grant.claims?.subject ?? "(no ID token)")
/// ```
public final class LoopbackListener: Sendable {
    /// The redirect URI to send, e.g. `http://127.0.0.1:49152/callback`.
    public let redirectURI: String
    private let server: HTTPServer
    private let wait = RedirectWait()
    private let path: String

    /// The bounds on the listener's connections: a request is small, a connection lives at
    /// most 10 s (5 s between bytes), and up to 512 may be open, the oldest closed for a new one.
    static let limits = HTTPServerLimits(
        maxRequestLineBytes: 8192, maxHeaderCount: 64, maxHeaderBytes: 16384, maxBodyBytes: 0,
        readTimeout: .seconds(5), maxConnections: 512, connectionLifetime: .seconds(10), dropsOldestWhenFull: true)

    private init(server: HTTPServer, path: String) {
        self.server = server
        self.path = path
        self.redirectURI = server.baseURL + path
    }

    /// Binds the listener.
    /// - Throws: `.configuration(.invalidConfiguration)` naming the port when a fixed port is
    ///   taken, or when the loopback address cannot be bound.
    public static func start(_ redirect: LoopbackRedirect) throws(VersolaError) -> LoopbackListener {
        try redirect.validate()
        let box = ListenerBox()
        let server: HTTPServer
        do {
            server = try HTTPServer.start(
                address: redirect.address == .ipv6 ? .ipv6Loopback : .ipv4Loopback, port: redirect.port, limits: limits
            ) { request in
                box.listener?.answer(request) ?? .respond(LoopbackPage.notFound)
            }
        } catch {
            if case .addressInUse = error {
                throw .configuration(
                    .invalidConfiguration("port \(redirect.port) is already in use; the loopback redirect needs it free"))
            }
            throw .configuration(.invalidConfiguration("cannot listen for the redirect: \(error)"))
        }
        let listener = LoopbackListener(server: server, path: redirect.path)
        box.set(listener)
        return listener
    }

    /// Sets the `state` of the authorization request in progress: only a response carrying it
    /// completes the wait. Before it is set, every response is refused.
    public func expect(state: String) {
        wait.expect(state: state)
    }

    /// Decides what the browser sees and records the matching authorization response.
    private func answer(_ request: HTTPServerRequest) -> HTTPServerAction {
        guard LoopbackHost.matches(request.headers["Host"], address: server.address, port: server.port) else {
            return .respond(LoopbackPage.wrongHost)
        }
        guard request.method == "GET", request.path == path else { return .respond(LoopbackPage.notFound) }
        // L8: only the person's own processes (their browser) complete it; another local user
        // who read the address from a command line gets nothing and consumes nothing.
        guard LoopbackPeerOwner().allows(request.peer, localPort: server.port) else { return .respond(LoopbackPage.otherUser) }
        switch wait.take(AuthorizationRedirect(query: request.query ?? "")) {
        case .accepted(let redirect):
            return .respond(redirect.error.map(LoopbackPage.refused) ?? LoopbackPage.received)
        case .refused(let refusal):
            return .respond(LoopbackPage.page(for: refusal))
        }
    }

    /// Hands in a redirect URL obtained elsewhere (pasted, or from another process).
    /// - Returns: nil when it completed the wait, else why it was refused (the wait goes on
    ///   unless it had already ended).
    public func offer(_ redirectURL: String) -> RedirectRefusal? {
        wait.offer(redirectURL)
    }

    /// Hands in a redirect URL obtained elsewhere; see ``offer(_:)``.
    /// - Returns: false when it was refused.
    @discardableResult
    public func deliver(_ redirectURL: String) -> Bool {
        offer(redirectURL) == nil
    }

    /// Ends the wait because the person cancelled: the waiter fails `userCancelled` (E7).
    public func cancel() {
        wait.finish(.recoverable(.userCancelled))
    }

    /// Waits for the redirect.
    /// - Parameters:
    ///   - timeout: how long the person has (on `clock`).
    ///   - clock: the clock the timeout runs on.
    /// - Throws: `.recoverable(.systemCancelled)` when the timeout passes or the task is
    ///   cancelled, `.recoverable(.userCancelled)` after ``cancel()`` (E7).
    public func waitForRedirect(timeout: Duration, clock: any VersolaClock) async throws(VersolaError)
        -> AuthorizationRedirect
    {
        try await wait.wait(timeout: timeout, clock: clock)
    }

    /// The port actually bound.
    public var port: UInt16 { server.port }

    /// Stops listening; the port is free when this returns.
    public func stop() async {
        await server.stop()
    }
}

/// Lets the server's handler reach the listener that owns the server, set once after binding.
private final class ListenerBox: Sendable {
    private let stored = Mutex<LoopbackListener?>(nil)
    var listener: LoopbackListener? { stored.withLock { $0 } }
    func set(_ listener: LoopbackListener) { stored.withLock { $0 = listener } }
}
