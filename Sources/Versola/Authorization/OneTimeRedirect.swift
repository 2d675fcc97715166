import Foundation
import Synchronization
import VersolaJOSE
import VersolaHTTP

/// A loopback page that sends the browser on to an address no command line may carry (the
/// end-session page with its `id_token_hint`, A15): the browser is started with
/// `http://127.0.0.1:<port>/<random>`, which holds no secret, and the first request for that
/// path (with the listener's own `Host`) is answered `303 See Other` to the real address.
/// Every other request gets a page saying so; after the first, the address is forgotten.
///
/// A local user can read a browser's command line in `/proc/<pid>/cmdline` while it runs;
/// the address there is now useless once opened, and tells nothing before.
///
/// ```swift
/// let opened = await OneTimeRedirect.open(request.url, in: SystemBrowser(), random: SystemRandomSource(),
///                                         clock: SystemClock(), timeout: OneTimeRedirect.defaultTimeout)
/// if !opened { print("To sign out at the provider too, open:", request.shareableURL) }
/// ```
public final class OneTimeRedirect: Sendable {
    /// The address to give the browser.
    public let url: String
    private let server: HTTPServer
    private let path: String
    private let state: Mutex<State>

    /// How long the browser has to ask for the page: 60 seconds.
    public static let defaultTimeout: Duration = .seconds(60)

    private struct State {
        var target: String?
        var visited = false
        var ended = false
        var waiter: CheckedContinuation<Bool, Never>?
    }

    private init(server: HTTPServer, path: String, target: String) {
        self.server = server
        self.path = path
        self.url = server.baseURL + path
        self.state = Mutex(State(target: target))
    }

    /// Listens on an ephemeral loopback port for one request on a path of 32 random bytes.
    /// - Throws: `.configuration(.invalidConfiguration)` when no loopback port can be bound.
    public static func start(target: String, random: any RandomSource) throws(VersolaError) -> OneTimeRedirect {
        let path = "/" + Base64URL.encode(random.bytes(32))
        let box = Mutex<OneTimeRedirect?>(nil)
        let server: HTTPServer
        do {
            server = try HTTPServer.start(address: .ipv4Loopback, port: 0, limits: LoopbackListener.limits) { request in
                box.withLock { $0 }?.answer(request) ?? .respond(LoopbackPage.notFound)
            }
        } catch {
            throw .configuration(.invalidConfiguration("cannot listen on loopback for the browser: \(error)"))
        }
        let redirect = OneTimeRedirect(server: server, path: path, target: target)
        box.withLock { $0 = redirect }
        return redirect
    }

    /// Starts a one-time page for `target`, opens it in `browser`, and waits until the
    /// browser asked for it (at most `timeout` on `clock`); stops listening after.
    /// - Returns: whether the browser was sent on to `target`.
    public static func open(
        _ target: String, in browser: any BrowserLauncher, random: any RandomSource, clock: any VersolaClock,
        timeout: Duration = defaultTimeout
    ) async -> Bool {
        guard let page = try? start(target: target, random: random) else { return false }
        let visited = await browser.open(page.url) ? await page.waitForVisit(timeout: timeout, clock: clock) : false
        await page.stop()
        return visited
    }

    private func answer(_ request: HTTPServerRequest) -> HTTPServerAction {
        guard LoopbackHost.matches(request.headers["Host"], address: server.address, port: server.port) else {
            return .respond(LoopbackPage.wrongHost)
        }
        guard request.method == "GET", request.path == path else { return .respond(LoopbackPage.notFound) }
        // L8: only the person's own processes (their browser) complete it; another local user
        // who read the address from a command line gets nothing and consumes nothing.
        guard LoopbackPeerOwner().allows(request.peer, localPort: server.port) else { return .respond(LoopbackPage.otherUser) }
        let taken = state.withLock { state -> (target: String, waiter: CheckedContinuation<Bool, Never>?)? in
            guard let target = state.target, !state.ended else { return nil }
            state.target = nil
            state.visited = true
            defer { state.waiter = nil }
            return (target, state.waiter)
        }
        guard let taken else { return .respond(LoopbackPage.used) }
        taken.waiter?.resume(returning: true)
        return .respond(LoopbackPage.redirect(to: taken.target))
    }

    /// Waits until the page was asked for (true) or `timeout` passed or the task was
    /// cancelled (false); after either the page answers no more.
    public func waitForVisit(timeout: Duration, clock: any VersolaClock) async -> Bool {
        let timer = Task { [weak self] in
            try? await clock.sleep(for: timeout)
            if !Task.isCancelled { self?.end() }
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool? in
                    if state.visited { return true }
                    if state.ended { return false }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            end()
        }
    }

    /// No visit counts any more: the address is forgotten and a waiter gets false.
    private func end() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.ended = true
            state.target = nil
            defer { state.waiter = nil }
            return state.visited ? nil : state.waiter
        }
        waiter?.resume(returning: false)
    }

    /// Stops listening, once the answer to the visit (if any) has gone out (at most a second).
    public func stop() async {
        end()
        let deadline = ContinuousClock.now + .seconds(1)
        while server.openConnectionCount > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        await server.stop()
    }
}
