import Foundation
import Synchronization

/// The loopback redirect listener of RFC 8252 §7.3 (A4): binds `127.0.0.1` (or `[::1]`)
/// on an ephemeral or fixed port, builds the redirect URI from the address actually bound,
/// and accepts exactly one authorization response on its path. Every other request gets a
/// 404 and does not consume it. The browser is shown a short page: success, or what went
/// wrong in words, never a secret.
///
/// A redirect may also be handed in from elsewhere (pasted by the person, or delivered by
/// another process, L2) with ``deliver(_:)``; whichever comes first wins.
///
/// ```swift
/// let listener = try LoopbackListener.start(LoopbackRedirect())
/// // open the browser on an authorization URL carrying listener.redirectURI …
/// let redirect = try await listener.waitForRedirect(timeout: .seconds(300), clock: SystemClock())
/// ```
public final class LoopbackListener: Sendable {
    /// The redirect URI to send, e.g. `http://127.0.0.1:49152/callback`.
    public let redirectURI: String
    private let server: HTTPServer
    private let outcome: Mutex<Outcome>
    private let path: String

    private struct Outcome {
        var delivered: AuthorizationRedirect?
        var finished: VersolaError?
        var waiter: CheckedContinuation<AuthorizationRedirect, any Error>?
    }

    private init(server: HTTPServer, path: String) {
        self.server = server
        self.path = path
        self.redirectURI = server.baseURL + path
        self.outcome = Mutex(Outcome())
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
                address: redirect.address == .ipv6 ? .ipv6Loopback : .ipv4Loopback, port: redirect.port
            ) { request in
                box.listener?.answer(request) ?? .respond(HTTPServerResponse(status: 404))
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

    /// Decides what the browser sees and records the first authorization response.
    private func answer(_ request: HTTPServerRequest) -> HTTPServerAction {
        guard request.method == "GET", request.path == path else {
            return .respond(HTTPServerResponse(status: 404, headers: ["Content-Type": "text/plain"], body: Array("Not found.\n".utf8)))
        }
        let redirect = AuthorizationRedirect(query: request.query ?? "")
        guard redirect.isAuthorizationResponse, accept(redirect) else {
            return .respond(HTTPServerResponse(status: 404, headers: ["Content-Type": "text/plain"], body: Array("Not found.\n".utf8)))
        }
        let page = redirect.error == nil ? RedirectPage.received : RedirectPage.refused(redirect.error ?? "")
        return .respond(.html(page))
    }

    /// Takes a redirect if none was taken yet; false when one already was.
    private func accept(_ redirect: AuthorizationRedirect) -> Bool {
        let waiter = outcome.withLock { state -> CheckedContinuation<AuthorizationRedirect, any Error>?? in
            guard state.delivered == nil, state.finished == nil else { return .none }
            state.delivered = redirect
            let waiter = state.waiter
            state.waiter = nil
            return .some(waiter)
        }
        guard let waiter else { return false }
        waiter?.resume(returning: redirect)
        return true
    }

    /// Hands in a redirect URL obtained elsewhere (pasted, or from another process).
    /// - Returns: false when a redirect was already taken or the wait ended.
    @discardableResult
    public func deliver(_ redirectURL: String) -> Bool {
        guard let redirect = try? AuthorizationRedirect(url: redirectURL), redirect.isAuthorizationResponse else {
            return false
        }
        return accept(redirect)
    }

    /// Ends the wait because the person cancelled: the waiter fails `userCancelled` (E7).
    public func cancel() {
        finish(.recoverable(.userCancelled))
    }

    private func finish(_ error: VersolaError) {
        let waiter = outcome.withLock { state -> CheckedContinuation<AuthorizationRedirect, any Error>? in
            guard state.delivered == nil, state.finished == nil else { return nil }
            state.finished = error
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume(throwing: error)
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
        let timer = Task { [weak self] in
            try? await clock.sleep(for: timeout)
            if !Task.isCancelled { self?.finish(.recoverable(.systemCancelled)) }
        }
        defer { timer.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let ready = outcome.withLock { state -> Result<AuthorizationRedirect, VersolaError>? in
                        if let delivered = state.delivered { return .success(delivered) }
                        if let finished = state.finished { return .failure(finished) }
                        state.waiter = continuation
                        return nil
                    }
                    if let ready { continuation.resume(with: ready) }
                }
            } onCancel: {
                finish(.recoverable(.systemCancelled))
            }
        } catch let error as VersolaError {
            throw error
        } catch {
            throw .recoverable(.systemCancelled)
        }
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

/// The pages the browser sees after the redirect.
enum RedirectPage {
    static let received = page(
        title: "Signed in", text: "You are signed in. You can close this window and return to your application.")

    static func refused(_ code: String) -> String {
        let reason: String
        switch code {
        case "access_denied": reason = "The sign-in was cancelled or refused."
        case "login_required", "interaction_required", "consent_required", "account_selection_required":
            reason = "The provider needs you to sign in interactively."
        default: reason = "The provider could not complete the sign-in."
        }
        return page(title: "Sign-in not completed", text: reason + " You can close this window and return to your application.")
    }

    private static func page(title: String, text: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(title)</title>
        <style>body{font-family:sans-serif;max-width:32rem;margin:4rem auto;text-align:center}</style></head>
        <body><h1>\(title)</h1><p>\(text)</p></body></html>
        """
    }
}
