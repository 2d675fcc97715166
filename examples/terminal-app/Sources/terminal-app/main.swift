// A terminal app on `import Versola` alone: restore, the state stream, a login with its own
// browser launcher, cancel and start again, a restart in the middle of a login, a token, a
// refresh, UserInfo and logout. Each step prints one line; a surprise exits 1.
import Foundation
import Synchronization
import Versola

/// Plays the person at the browser. While `follows` is off it only notes the address (the
/// person has not acted yet); while on, curl follows it to the end (a provider that signs in
/// by itself, like the test provider with --auto-login, then redirects to the app).
final class CurlBrowser: BrowserLauncher {
    private let state = Mutex<(follows: Bool, opened: Int)>((false, 0))

    var follows: Bool {
        get { state.withLock { $0.follows } }
        set { state.withLock { $0.follows = newValue } }
    }
    var opened: Int { state.withLock { $0.opened } }

    func open(_ url: String) async -> Bool {
        let follows = state.withLock { state in
            state.opened += 1
            return state.follows
        }
        guard follows else { return true }
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments = ["curl", "-sfL", "-o", "/dev/null", url]
        do { try curl.run() } catch { return false }
        return true
    }

    /// Waits until the browser was asked to open `count` addresses in all.
    func waitUntilOpened(_ count: Int) async throws {
        for _ in 0..<500 where opened < count { try await Task.sleep(for: .milliseconds(20)) }
        guard opened >= count else { fail("the browser was never asked to open the sign-in page") }
    }
}

/// Every state a session published, in order.
final class StateLog: Sendable {
    private let states = Mutex<[SessionState]>([])

    init(_ session: Session) {
        let stream = session.states()
        Task {
            for await state in stream { self.states.withLock { $0.append(state) } }
        }
    }

    var all: [SessionState] { states.withLock { $0 } }
}

func step(_ name: String, _ detail: String) {
    print("\(name): \(detail)")
}

func fail(_ why: String) -> Never {
    FileHandle.standardError.write(Data("terminal-app: \(why)\n".utf8))
    exit(1)
}

func expect(_ condition: Bool, _ why: @autoclosure () -> String) {
    if !condition { fail(why()) }
}

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: terminal-app ISSUER\n".utf8))
    exit(2)
}
let configuration = SessionConfiguration(
    client: ClientConfiguration(issuer: CommandLine.arguments[1], clientID: "versola-test"))
let browser = CurlBrowser()

do {
    let storage = try SessionStorage.standard(profile: "terminal-app")
    func newSession() throws(VersolaError) -> Session {
        try Session(configuration: configuration, store: storage.store, browser: browser)
    }

    // Restore: from disk alone, so it works offline.
    let session = try newSession()
    await session.start()
    step("restored", "\(session.state)")
    expect(session.state == .unauthenticated, "a fresh profile should restore signed out")
    let log = StateLog(session)

    // A sign-in the person cancels (the app's Cancel button), then starts again.
    let cancelled = Task { try await session.login() }
    try await browser.waitUntilOpened(1)
    await session.cancelLogin()
    if case .failure(let error as VersolaError) = await cancelled.result, error == .recoverable(.userCancelled) {
        step("cancelled", "\(session.state)")
    } else {
        fail("a cancelled login should end userCancelled")
    }
    expect(session.state == .unauthenticated, "a cancelled login returns to where it was")

    // Started again, then the app goes away in the middle (its task ends); the request stays on disk.
    let interrupted = Task { try await session.login() }
    try await browser.waitUntilOpened(2)
    interrupted.cancel()
    _ = await interrupted.result
    let restarted = try newSession()
    await restarted.start()
    step("restarted mid-login", "\(restarted.state)")
    expect(restarted.state == .authorizing, "a restart mid-login restores the waiting request")

    // The restarted app signs in: the new login takes the old request's place (SPEC S14).
    browser.follows = true
    try await restarted.login()
    step("signed in", "\(restarted.state) as \(restarted.user?.subject ?? "?")")
    expect(restarted.state == .authenticated, "the login should succeed")

    let token = try await restarted.accessToken()
    step("access token", "\(token.utf8.count) characters")
    let refreshed = try await restarted.accessToken(forceRefresh: true)
    step("refreshed", refreshed == token ? "the same token" : "a new token")
    expect(refreshed != token, "a forced refresh gives a new access token")
    let info = try await restarted.userInfo()
    step("userinfo", "\(info.subject ?? "(no sub)") \(info.email ?? "(no email)")")

    _ = await restarted.logout()
    step("logged out", "\(restarted.state)")
    expect(restarted.state == .unauthenticated, "logout signs out")

    // The first session followed the other one's login and logout on the same profile.
    for _ in 0..<250 where session.state != .unauthenticated || !log.all.contains(.authenticated) {
        try await Task.sleep(for: .milliseconds(20))
    }
    step("states", log.all.map(\.rawValue).joined(separator: " → "))
    expect(log.all.first == .unauthenticated && log.all.contains(.authorizing), "the stream shows the login")
} catch {
    fail("\(error)")
}
