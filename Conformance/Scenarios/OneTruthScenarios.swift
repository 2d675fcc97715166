import Foundation
import Synchronization
import Testing
import Versola
import VersolaCrypto
import VersolaHTTP
import VersolaTestIdP

/// A key source that can be locked and unlocked by the test, like a keyring, or made unusable
/// as a keyring is without its session bus.
final class LockableKeySource: KeySource {
    private let key: SymmetricKey
    private let locked = Mutex(false)
    private let unusable = Mutex(false)

    init(key: SymmetricKey = SymmetricKey.generate()) { self.key = key }

    func setLocked(_ value: Bool) { locked.withLock { $0 = value } }
    func setUnusable(_ value: Bool) { unusable.withLock { $0 = value } }

    func dataKey() async throws(VersolaError) -> SymmetricKey {
        if locked.withLock({ $0 }) { throw .recoverable(.unlockRequired) }
        if unusable.withLock({ $0 }) { throw .configuration(.invalidConfiguration("no D-Bus session bus (test)")) }
        return key
    }
}

/// A store on disk whose writes can be made to fail, as a full disk would (ENOSPC).
final class FailingWritesStore: SessionStore {
    let base: FileSessionStore
    /// Saves to let through, then saves to fail, and the `errno` they fail with.
    private let plan = Mutex((allow: 0, fail: 0, code: ENOSPC))

    init(_ base: FileSessionStore) { self.base = base }

    /// The next `allow` saves succeed, the `fail` after them fail.
    func failSaves(after allow: Int = 0, count fail: Int, code: Int32 = ENOSPC) { plan.withLock { $0 = (allow, fail, code) } }

    func load() async throws(VersolaError) -> SessionRecord? { try await base.load() }

    func save(_ record: SessionRecord) async throws(VersolaError) {
        let failure = plan.withLock { plan -> Int32? in
            if plan.allow > 0 {
                plan.allow -= 1
                return nil
            }
            guard plan.fail > 0 else { return nil }
            plan.fail -= 1
            return plan.code
        }
        if let failure {
            throw .recoverable(.storageUnavailable("cannot write \(base.recordFile.path): \(String(cString: strerror(failure)))"))
        }
        try await base.save(record)
    }

    func wipe() async throws(VersolaError) {
        // Removing needs no room: only an I/O error or a read-only file system refuses it.
        let code = plan.withLock { $0.fail > 0 && $0.code != ENOSPC ? $0.code : nil }
        if let code { throw .recoverable(.storageUnavailable("cannot remove \(base.recordFile.path): \(String(cString: strerror(code)))")) }
        try await base.wipe()
    }

    nonisolated(nonsending) func withExclusiveAccess<R>(_ body: () async throws(VersolaError) -> R)
        async throws(VersolaError) -> R
    {
        try await base.withExclusiveAccess(body)
    }

    func generation() async -> UInt64 { await base.generation() }
    var recordDescription: String { base.recordDescription }
    func changes() -> AsyncStream<UInt64> { base.changes() }
}

@Suite(.serialized) struct OneTruthScenarios {
    /// A session of the rig's profile on `store` (the rig's engine environment and browser).
    static func session(_ rig: SessionRig, store: any SessionStore) throws -> Session {
        try SessionRig.makeSession(configuration: rig.configuration, store: store, clock: rig.clock, browser: rig.browser)
    }

    /// A session signed in on a store whose key source the test can lock or break.
    static func signedInOnLockableKeys(
        _ rig: SessionRig
    ) async throws -> (keys: LockableKeySource, store: FileSessionStore, session: Session) {
        let keys = LockableKeySource()
        let store = try FileSessionStore(profile: "work", directory: rig.directories.stateHome, keySource: keys)
        let session = try session(rig, store: store)
        await session.start()
        try await session.login()
        return (keys, store, session)
    }

    @Test("L2 S11: a login waiting in one session finishes when another session completes its pending request")
    func waitingLoginFinishedByAnotherSession() async throws {
        let rig = try await SessionRig(browserFollows: false)
        try await withRig(rig) { rig in
            await rig.session.start()
            let session = rig.session
            let login = Task { () async throws -> Void in try await session.login() }
            while rig.browser.opened.isEmpty { await Task.yield() }
            // The address the browser ends on, not delivered to the waiting listener.
            let landing = try await HeadlessUserAgent(transport: StopAtLoopback())
                .complete(authorizationURL: try #require(rig.browser.opened.first))
            let redirect = try #require(landing.visited.last)
            let other = try rig.restarted()
            await other.start()
            #expect(other.state == .authorizing)
            try await other.deliverRedirect(redirect)
            #expect(other.state == .authenticated)
            try await login.value
            #expect(session.state == .authenticated)
            #expect(session.user?.subject == TestUser().subject)
            #expect(await rig.tokenRequests(grant: "authorization_code") == 1)
            // The session that waited serves a token from the grant the other one stored.
            #expect(try await session.accessToken().isEmpty == false)
        }
    }

    @Test("S13 S10: the key source locking mid-session gives locked with the record kept; unlocking returns to authenticated")
    func lockedMidSession() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            let (keys, store, session) = try await Self.signedInOnLockableKeys(rig)
            let before = FileManager.default.contents(atPath: store.recordFile.path)
            keys.setLocked(true)
            do throws(VersolaError) {
                _ = try await session.accessToken(forceRefresh: true)
                Issue.record("a refresh with a locked store succeeded")
            } catch {
                #expect(error == .recoverable(.unlockRequired))
            }
            #expect(session.state == .locked)
            #expect(FileManager.default.contents(atPath: store.recordFile.path) == before, "the record is kept")
            await #expect(throws: VersolaError.recoverable(.unlockRequired)) { try await session.accessToken() }
            keys.setLocked(false)
            await session.unlocked()
            #expect(session.state == .authenticated)
            #expect(try await session.accessToken(forceRefresh: true).isEmpty == false)
            #expect(await rig.idp.provider.revokedFamilyCount == 0)
        }
    }

    @Test("S13 E4: a key source that stops working mid-session (no session bus) is named; it neither signs out nor wipes")
    func unusableKeySourceKeepsTheGrant() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            let (keys, store, session) = try await Self.signedInOnLockableKeys(rig)
            let before = FileManager.default.contents(atPath: store.recordFile.path)
            keys.setUnusable(true)
            // What a change notice from another process does: read the store again.
            await session.reloadFromStore()
            #expect(session.state == .authenticated, "only a record that no longer decrypts ends a session")
            #expect(session.storageProblem?.contains("no D-Bus session bus") == true, "\(session.storageProblem ?? "")")
            do throws(VersolaError) {
                _ = try await session.accessToken(forceRefresh: true)
                Issue.record("a refresh without its key succeeded")
            } catch {
                #expect(error.category == "configuration", "\(error)")
            }
            #expect(session.state == .authenticated)
            #expect(FileManager.default.contents(atPath: store.recordFile.path) == before, "the record is kept")
            keys.setUnusable(false)
            #expect(try await session.accessToken(forceRefresh: true).isEmpty == false)
            #expect(await rig.idp.provider.revokedFamilyCount == 0)
        }
    }

    @Test("E9 S11: a session holding no grant keeps a record it cannot open (another key source's) instead of wiping it")
    func signedOutSessionKeepsAForeignRecord() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            let stale = try Self.session(
                rig, store: try FileSessionStore(profile: "work", directory: rig.directories.stateHome, keySource: LockableKeySource()))
            await stale.start()
            #expect(stale.state == .unauthenticated)
            // Another process signs in with another key: the profile moved to another key source.
            let current = try Self.session(
                rig, store: try FileSessionStore(profile: "work", directory: rig.directories.stateHome, keySource: LockableKeySource()))
            await current.start()
            try await current.login()
            await stale.reloadFromStore()
            #expect(stale.state == .unauthenticated)
            #expect(FileManager.default.fileExists(atPath: rig.storage.store.recordFile.path), "the other key source's record is kept")
            #expect(try await current.accessToken(forceRefresh: true).isEmpty == false)
            #expect(current.state == .authenticated)
        }
    }

    @Test(
        "P10 P7 A7: a rotated refresh token survives a failure after the token answer; the next refresh presents it",
        arguments: ["expiredIDToken", "wrongAccessTokenHash", "unknownSigningKey+jwks503"])
    func rotatedTokenSurvives(fault: String) async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let spent = try await rig.storage.store.load()?.refreshToken
            switch fault {
            case "expiredIDToken": await rig.idp.provider.arm(TestFaultRule(.token, .expiredIDToken))
            case "wrongAccessTokenHash": await rig.idp.provider.arm(TestFaultRule(.token, .wrongAccessTokenHash))
            default:
                await rig.idp.provider.arm(TestFaultRule(.token, .unknownSigningKey))
                await rig.idp.provider.arm(TestFaultRule(.jwks, .respond(status: 503), times: nil))
            }
            do throws(VersolaError) {
                _ = try await rig.session.accessToken(forceRefresh: true)
                Issue.record("a refresh whose answer fails validation succeeded")
            } catch {
                #expect(error.category == "configuration" || error.category == "recoverable", "\(error)")
            }
            await rig.idp.provider.clearFaults()
            let stored = try await rig.storage.store.load()?.refreshToken
            #expect(stored != nil && stored != spent, "the rotated refresh token is on disk")
            #expect(rig.session.state == .authenticated)
            // The next refresh presents the rotated token: no reuse, the session lives.
            #expect(try await rig.session.accessToken(forceRefresh: true).isEmpty == false)
            let presented = await rig.idp.provider.requests(to: .token).last?.formValue("refresh_token")
            #expect(presented == stored)
            #expect(await rig.idp.provider.revokedFamilyCount == 0)
        }
    }

    @Test("P10 E1: a full disk during a refresh keeps the renewed grant in memory, serves it, and writes it later")
    func fullDiskDuringRefresh() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            let store = FailingWritesStore(rig.storage.store)
            // The held record's write retry (2 s, doubling) waits for this scenario to move time.
            let clock = ScenarioClock(passingByItself: .seconds(1))
            let session = try SessionRig.makeSession(configuration: rig.configuration, store: store, clock: clock, browser: rig.browser)
            await session.start()
            try await session.login()
            let spent = try await store.load()?.refreshToken
            // The in-flight marker is written; every write after the token answer fails until
            // the disk has room again.
            store.failSaves(after: 1, count: .max)
            let token = try await session.accessToken(forceRefresh: true)
            #expect(!token.isEmpty, "the renewed access token is served")
            #expect(session.state == .authenticated)
            #expect(try await store.load()?.refreshToken == spent, "the disk still holds the spent token")
            #expect(try await session.accessToken() == token, "served from memory")
            // The disk has room again: the retry writes the held record.
            store.failSaves(count: 0)
            clock.advance(by: .seconds(3))
            var written = try await store.load()?.refreshToken
            let deadline = ContinuousClock.now + .seconds(30)
            while written == spent && ContinuousClock.now < deadline {
                await Task.yield()
                written = try await store.load()?.refreshToken
            }
            #expect(written != nil && written != spent, "the rotated token reached the disk")
            #expect(try await session.accessToken(forceRefresh: true).isEmpty == false)
            #expect(await rig.idp.provider.requests(to: .token).last?.formValue("refresh_token") == written)
            #expect(await rig.idp.provider.revokedFamilyCount == 0)
        }
    }

    @Test("P1 E1: a pending request that cannot be stored fails the login before any browser opens")
    func pendingWriteFailure() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            let store = FailingWritesStore(rig.storage.store)
            let session = try Self.session(rig, store: store)
            await session.start()
            store.failSaves(count: 1)
            do throws(VersolaError) {
                try await session.login()
                Issue.record("a login whose pending request was not stored went on")
            } catch {
                guard case .recoverable(.storageUnavailable) = error else {
                    Issue.record("expected storageUnavailable, got \(error)")
                    return
                }
            }
            #expect(rig.browser.opened.isEmpty, "no browser opened")
            #expect(session.state == .unauthenticated)
        }
    }

    @Test("E9 S13: a record that no longer decrypts is named as the cause in the status and in the error, not a bare signed-out")
    func undecryptableRecordIsNamed() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            // The data key is lost: a new key file.
            let keyFile = rig.directories.stateHome.appendingPathComponent("versola/key").path
            #expect(FileManager.default.fileExists(atPath: keyFile))
            try FileManager.default.removeItem(atPath: keyFile)
            let restarted = try rig.restarted()
            await restarted.start()
            #expect(restarted.state == .unauthenticated)
            let problem = try #require(restarted.storageProblem)
            #expect(problem.contains(rig.storage.store.recordFile.path), "\(problem)")
            await #expect(throws: VersolaError.reauthenticate(.credentialsInvalidated)) { try await restarted.accessToken() }
            #expect(FileManager.default.fileExists(atPath: rig.storage.store.recordFile.path), "the record is kept")
        }
    }
}
