import Foundation
import Synchronization
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

@Suite(.serialized) struct SessionScenarios {
    @Test("S3 S4 P1: login publishes authorizing then authenticated; the pending request is stored before the browser opens")
    func loginTransitions() async throws {
        let rig = try await SessionRig(browserFollows: false)
        try await withRig(rig) { rig in
            await rig.session.start()
            let log = StateLog(rig.session)
            await log.wait(for: 1)
            let session = rig.session
            let login = Task { () async throws -> Void in try await session.login() }
            while rig.browser.opened.isEmpty { await Task.yield() }
            // P1: on disk before the browser leg.
            let stored = try await rig.storage.store.load()
            #expect(stored?.pendingAuthorization != nil)
            #expect(session.state == .authorizing)
            let url = try #require(rig.browser.opened.first)
            _ = try await HeadlessUserAgent().complete(authorizationURL: url)
            try await login.value
            await log.wait(for: 3)
            #expect(log.all == [.unauthenticated, .authorizing, .authenticated])
            #expect(session.user?.subject == TestUser().subject)
            let after = try await rig.storage.store.load()
            #expect(after?.pendingAuthorization == nil)
            #expect(after?.refreshToken != nil)
        }
    }

    @Test("S6 T1 P7: an expired access token is refreshed once and the rotated token is stored first")
    func expiryRefresh() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let first = try await rig.session.accessToken()
            #expect(try await rig.session.accessToken() == first)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 0)
            rig.clock.advance(by: .seconds(190))  // 300 s lifetime, 120 s margin
            let second = try await rig.session.accessToken()
            #expect(second != first)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 1)
            let stored = try #require(try await rig.storage.store.load())
            let lastRefresh = try #require(await rig.idp.provider.requests(to: .token).last)
            #expect(stored.refreshToken != lastRefresh.formValue("refresh_token"))
            #expect(stored.refreshInFlight == nil)
        }
    }

    @Test("T2: 50 concurrent callers while the token expires share exactly one refresh")
    func singleFlight() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            rig.clock.advance(by: .seconds(200))
            let session = rig.session
            // The provider holds the refresh's answer, so the other 49 callers arrive while it is
            // in flight (without the hold the first refresh can end before they ask, and the
            // scenario would pass with no single flight at all).
            await rig.idp.provider.arm(TestFaultRule(.token, .delay(milliseconds: 3_000)))
            let tokens = try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask { try? await session.accessToken() }
                let deadline = ContinuousClock.now + .seconds(30)
                while await rig.tokenRequests(grant: "refresh_token") == 0, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(5))
                }
                for _ in 1..<50 { group.addTask { try? await session.accessToken() } }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(Set(tokens.compactMap { $0 }).count == 1)
            #expect(tokens.allSatisfy { $0 != nil })
            #expect(await rig.tokenRequests(grant: "refresh_token") == 1)
            #expect(await rig.idp.provider.revokedFamilyCount == 0)
        }
    }

    @Test("T4: forceRefresh skips the cache")
    func forceRefresh() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let first = try await rig.session.accessToken()
            let forced = try await rig.session.accessToken(forceRefresh: true)
            #expect(forced != first)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 1)
        }
    }

    @Test("S7 P6: invalid_grant on refresh signs out and wipes everything stored")
    func invalidGrantWipes() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            await rig.idp.provider.arm(TestFaultRule(.token, .oauthError("invalid_grant")))
            do throws(VersolaError) {
                _ = try await rig.session.accessToken(forceRefresh: true)
                Issue.record("a refused refresh succeeded")
            } catch {
                #expect(error == .reauthenticate(.grantRejected))
            }
            #expect(rig.session.state == .unauthenticated)
            #expect(rig.session.user == nil)
            #expect(try await rig.storage.store.load() == nil)
        }
    }

    @Test("T5 T6: a failed refresh keeps the session and the stored grant, and publishes only the return to authenticated")
    func networkFailureKeepsSession() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let before = try await rig.storage.store.load()
            // T6: what the state stream publishes, from here on.
            let log = StateLog(rig.session)
            await log.wait(for: 1)
            let initial = log.all.count
            await rig.idp.provider.arm(TestFaultRule(.token, .respond(status: 500)))
            let thrown = await #expect(throws: VersolaError.self) { _ = try await rig.session.accessToken(forceRefresh: true) }
            #expect(thrown?.category == "recoverable" && thrown?.cause == "server", "got \(String(describing: thrown))")
            #expect(rig.session.state == .authenticated)
            #expect(try await rig.storage.store.load()?.refreshToken == before?.refreshToken)
            #expect(try await rig.session.accessToken(forceRefresh: true).isEmpty == false)
            // The failure published only the return to authenticated: a repeated value (an extra
            // `authenticated`, or the failure itself) would show before the second refresh.
            await log.wait(for: initial + 4)
            #expect(log.all == [.authenticated, .refreshing, .authenticated, .refreshing, .authenticated])
            #expect(zip(log.all, log.all.dropFirst()).allSatisfy { $0 != $1 }, "\(log.all)")
        }
    }

    @Test("S8: an expired grant without a refresh token signs out with no token request")
    func noRefreshToken() async throws {
        let rig = try await SessionRig(configure: { $0.issueRefreshTokens = false })
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            rig.clock.advance(by: .seconds(400))
            do throws(VersolaError) {
                _ = try await rig.session.accessToken()
                Issue.record("an expired token without refresh token was served")
            } catch {
                #expect(error == .reauthenticate(.sessionExpired))
            }
            #expect(rig.session.state == .unauthenticated)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 0)
        }
    }

    @Test("S9 A9 P6: logout wipes locally even when revocation fails")
    func logoutOffline() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            await rig.idp.provider.arm(TestFaultRule(.revocation, .reset, times: nil))
            await rig.session.logout()
            #expect(rig.session.state == .unauthenticated)
            #expect(try await rig.storage.store.load() == nil)
            #expect(!(await rig.idp.provider.requests(to: .revocation).isEmpty))
        }
    }

    @Test("P2 L2 S3: a restarted process restores authorizing and a redirect delivered to it completes the login")
    func restartDuringLogin() async throws {
        let rig = try await SessionRig(browserFollows: false)
        try await withRig(rig) { rig in
            await rig.session.start()
            let session = rig.session
            let login = Task { () async throws -> Void in try await session.login() }
            while rig.browser.opened.isEmpty { await Task.yield() }
            let url = try #require(rig.browser.opened.first)
            // The first process goes away; a new one starts on the same profile.
            let restarted = try rig.restarted()
            await restarted.start()
            #expect(restarted.state == .authorizing)
            let landing = try await HeadlessUserAgent(transport: StopAtLoopback()).complete(authorizationURL: url)
            let redirect = try #require(landing.visited.last)
            try await restarted.deliverRedirect(redirect)
            #expect(restarted.state == .authenticated)
            login.cancel()
        }
    }

    @Test("P2: a pending request older than 10 minutes is discarded; a redirect for it fails pendingRequestExpired")
    func expiredPending() async throws {
        let rig = try await SessionRig(browserFollows: false)
        try await withRig(rig) { rig in
            await rig.session.start()
            let session = rig.session
            let login = Task { () async throws -> Void in try await session.login() }
            while rig.browser.opened.isEmpty { await Task.yield() }
            rig.clock.setWallClock(rig.clock.wallClockNow.addingTimeInterval(601))
            let restarted = try rig.restarted()
            await restarted.start()
            #expect(restarted.state == .unauthenticated)
            await #expect(throws: VersolaError.recoverable(.pendingRequestExpired)) {
                try await restarted.deliverRedirect("http://127.0.0.1:1/callback?code=x&state=y")
            }
            login.cancel()
        }
    }

    @Test("P3 T5: a stored refresh token restores authenticated with the user, offline, from disk alone")
    func restoreFromDisk() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            await rig.idp.stop()
            let restarted = try rig.restarted()
            await restarted.start()
            #expect(restarted.state == .authenticated)
            #expect(restarted.user?.subject == TestUser().subject)
            // T5: a network failure never signs out.
            let thrown2 = await #expect(throws: VersolaError.self) { _ = try await restarted.accessToken() }
            #expect(thrown2?.category == "recoverable" && thrown2?.cause == "network", "got \(String(describing: thrown2))")
            #expect(restarted.state == .authenticated)
        }
    }

    @Test("P9 S4: a failed re-login over a live session leaves the stored record exactly as it was")
    func failedReloginKeepsRecord() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let before = try await rig.storage.store.load()
            await rig.idp.provider.arm(TestFaultRule(.authorize, .oauthError("access_denied")))
            await #expect(throws: VersolaError.reauthenticate(.authorizationDenied)) { try await rig.session.login() }
            #expect(rig.session.state == .authenticated)
            #expect(try await rig.storage.store.load() == before)
        }
    }

    @Test("S5 A10 E3: insufficient_user_authentication is stepUp(challenge); stepUp() returns to authenticated")
    func stepUp() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            await rig.idp.provider.arm(TestFaultRule(.resource, .stepUp(acrValues: "urn:example:mfa", maxAge: 60)))
            let request = HTTPRequest(url: URL(string: rig.idp.resourceURL)!)
            do throws(VersolaError) {
                _ = try await rig.session.send(request)
                Issue.record("a step-up demand was not reported")
            } catch {
                #expect(error == .stepUp(StepUpChallenge(acrValues: ["urn:example:mfa"], maxAge: 60)))
            }
            #expect(rig.session.state == .stepUpRequired)
            try await rig.session.stepUp(StepUpChallenge(acrValues: ["urn:example:mfa"], maxAge: 60))
            #expect(rig.session.state == .authenticated)
            let authorize = try #require(await rig.idp.provider.requests(to: .par).last)
            #expect(authorize.formValue("acr_values") == "urn:example:mfa")
            #expect(authorize.formValue("max_age") == "60")
            let response = try await rig.session.send(request)
            #expect(response.status == 200)
        }
    }

    @Test("E10 R3: a 401 gets one refresh and one replay; a second 401 is sessionRejected; other statuses come back")
    func unauthorizedReplay() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let request = HTTPRequest(url: URL(string: rig.idp.resourceURL)!)
            await rig.idp.provider.arm(TestFaultRule(.resource, .respond(status: 401)))
            #expect(try await rig.session.send(request).status == 200)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 1)
            await rig.idp.provider.arm(TestFaultRule(.resource, .respond(status: 401), times: 2))
            await #expect(throws: VersolaError.reauthenticate(.sessionRejected)) { _ = try await rig.session.send(request) }
            await rig.idp.provider.arm(TestFaultRule(.resource, .respond(status: 503)))
            #expect(try await rig.session.send(request).status == 503)
        }
    }

    @Test("P5 L3 P4: files are user-only and the record never holds the access token")
    func filesOnDisk() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let token = try await rig.session.accessToken()
            let record = try #require(try await rig.storage.store.load())
            #expect(!record.description.contains(token))
            let file = rig.storage.store.recordFile
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let directory = try FileManager.default.attributesOfItem(atPath: rig.storage.store.profileDirectory.path)
            #expect((directory[.posixPermissions] as? Int) == 0o700)
            let bytes = try Data(contentsOf: file)
            #expect(bytes.range(of: Data(token.utf8)) == nil)
            #expect(bytes.range(of: Data((record.refreshToken ?? "x").utf8)) == nil)
        }
    }

    @Test("P8: another profile reads an empty store")
    func profileIsolation() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let other = try SessionStorage(profile: "personal", keySource: .keyFile, directories: rig.directories)
            #expect(try await other.store.load() == nil)
        }
    }

    @Test("E9: a tampered record signs out with the file kept")
    func tamperedRecord() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            _ = try await rig.signedInWithTamperedRecord()
            let file = rig.storage.store.recordFile
            await #expect(throws: VersolaError.reauthenticate(.credentialsInvalidated)) {
                _ = try await rig.storage.store.load()
            }
            let restarted = try rig.restarted()
            await restarted.start()
            #expect(restarted.state == .unauthenticated)
            #expect(FileManager.default.fileExists(atPath: file.path))
        }
    }
}
