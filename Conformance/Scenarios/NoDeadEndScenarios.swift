import Foundation
import Synchronization
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

/// Scenarios for the states a session can start in after an interruption (S14, P12): none
/// of them makes a new sign-in fail for a reason that sign-in would fix.
@Suite(.serialized) struct NoDeadEndScenarios {
    /// Whether a login task ended.
    private final class Ended: Sendable {
        let value = Mutex(false)
    }

    /// Starts `session.login()` and waits (yielding, never sleeping) until it asked `browser` to
    /// open the sign-in page; a login that ends first fails the scenario instead of hanging it.
    private func loginOpeningBrowser(_ session: Session, _ browser: HeadlessBrowser) async throws -> Task<Void, any Error> {
        let ended = Ended()
        let login = Task { () async throws -> Void in
            defer { ended.value.withLock { $0 = true } }
            try await session.login()
        }
        while browser.opened.isEmpty && !ended.value.withLock({ $0 }) { await Task.yield() }
        if browser.opened.isEmpty {
            let outcome = await login.result
            Issue.record("the login ended before opening the browser: \(outcome)")
            throw CancellationError()
        }
        return login
    }

    /// A login in `rig.session` that opened the browser, then was cancelled as a task (the
    /// pending request stays on disk, E7), and a restarted process that restored it.
    private func interruptedLogin(_ rig: SessionRig) async throws -> (restarted: Session, oldState: String) {
        await rig.session.start()
        let login = try await loginOpeningBrowser(rig.session, rig.browser)
        login.cancel()
        _ = await login.result
        let old = try #require(try await rig.storage.store.load()?.pendingAuthorization)
        let restarted = try rig.restarted()
        await restarted.start()
        #expect(restarted.state == .authorizing)
        return (restarted, old.state)
    }

    @Test("S14 P1: after a restart mid-login, login() supersedes the restored request: old one discarded, new one stored, sign-in completes")
    func loginSupersedesRestoredRequest() async throws {
        let rig = try await SessionRig(browserFollows: false)
        try await withRig(rig) { rig in
            let (_, oldState) = try await interruptedLogin(rig)
            let browser = HeadlessBrowser(follows: false, starts: true)
            let session = try SessionRig.makeSession(
                configuration: rig.configuration, storage: rig.storage, clock: rig.clock, browser: browser)
            await session.start()
            #expect(session.state == .authorizing)
            let login = try await loginOpeningBrowser(session, browser)
            // P1: the new request is on disk before the browser leg, and it is not the old one.
            let stored = try #require(try await rig.storage.store.load()?.pendingAuthorization)
            #expect(stored.state != oldState)
            _ = try await HeadlessUserAgent().complete(authorizationURL: try #require(browser.opened.first))
            try await login.value
            #expect(session.state == .authenticated)
            #expect(try await rig.storage.store.load()?.pendingAuthorization == nil)
        }
    }

    @Test("S14 E7: cancelLogin() drops a restored pending request and returns to unauthenticated")
    func cancelDropsRestoredRequest() async throws {
        let rig = try await SessionRig(browserFollows: false)
        try await withRig(rig) { rig in
            let (restarted, _) = try await interruptedLogin(rig)
            let log = StateLog(restarted)
            await log.wait(for: 1)
            await restarted.cancelLogin()
            #expect(restarted.state == .unauthenticated)
            await log.wait(for: 2)
            #expect(log.all == [.authorizing, .unauthenticated])
            #expect(try await rig.storage.store.load() == nil, "the request (and the key made for it) are gone")
            // A third process starts signed out.
            let third = try rig.restarted()
            await third.start()
            #expect(third.state == .unauthenticated)
        }
    }

    @Test("P12: a record that no longer decrypts never blocks a sign-in: the login moves it aside (user-only, named in status) and writes the new session")
    func undecryptableRecordMovedAside() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            let bytes = try await rig.signedInWithTamperedRecord()
            let file = rig.storage.store.recordFile
            let restarted = try rig.restarted()
            await restarted.start()
            // Until a sign-in succeeds, every read reports the record as it is.
            #expect(restarted.state == .unauthenticated)
            let problem = try #require(restarted.storageProblem)
            #expect(problem.contains(file.path))
            #expect(problem.contains("until a sign-in succeeds"), "it names what fixes it")
            #expect(try Data(contentsOf: file) == bytes)
            try await restarted.login()
            #expect(restarted.state == .authenticated)
            #expect(restarted.storageProblem == nil)
            let aside = try #require(restarted.setAsideRecords.first)
            #expect(restarted.setAsideRecords.count == 1)
            #expect(try Data(contentsOf: URL(fileURLWithPath: aside)) == bytes, "moved, not rewritten")
            let mode = try FileManager.default.attributesOfItem(atPath: aside)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            #expect(try await rig.storage.store.load()?.refreshToken != nil)
            // A later process reads the new session and still names the record set aside.
            let later = try rig.restarted()
            await later.start()
            #expect(later.state == .authenticated)
            #expect(later.setAsideRecords == [aside])
        }
    }
}
