import Foundation
import Synchronization
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTestIdP

/// Scenarios for the device authorization grant (A14, RFC 8628): a session on files against
/// the test provider, both on the scenario's virtual clock, so poll instants are exact and no
/// wait passes in real time. The person is played by ``HeadlessUserAgent`` at the
/// verification page.
@Suite(.serialized) struct DeviceFlowScenarios {
    /// An interval longer than ``ScenarioClock/autoAdvanceLimit``: each wait for the next poll
    /// then lasts until the scenario advances the clock, so the scenario decides when polls happen.
    static let heldInterval = 121

    /// Records what the session presented.
    final class Prompts: Sendable {
        private let prompts = Mutex<[DeviceAuthorizationPrompt]>([])
        var all: [DeviceAuthorizationPrompt] { prompts.withLock { $0 } }
        func append(_ prompt: DeviceAuthorizationPrompt) { prompts.withLock { $0.append(prompt) } }
    }

    /// The person opening the verification page that carries the code (approving with the
    /// provider's auto-login, or pressing Cancel on its form with `denies`).
    static func answer(_ prompt: DeviceAuthorizationPrompt, denies: Bool = false) async {
        guard let page = prompt.verificationURIComplete else {
            Issue.record("no verification_uri_complete")
            return
        }
        do {
            let landing = try await HeadlessUserAgent(denies: denies).complete(authorizationURL: page)
            #expect(landing.response.status == 200)
        } catch {
            Issue.record("the verification page failed: \(error)")
        }
    }

    /// The device-code polls the provider received, oldest first.
    static func polls(_ rig: SessionRig) async -> [RecordedRequest] {
        await rig.idp.provider.requests(to: .token).filter {
            $0.formValue("grant_type") == "urn:ietf:params:oauth:grant-type:device_code"
        }
    }

    /// Seconds from the device request to each poll, on the provider's (virtual) clock.
    static func pollInstants(_ rig: SessionRig) async throws -> [Double] {
        let request = try #require(await rig.idp.provider.requests(to: .deviceAuthorization).last)
        return await polls(rig).map { $0.receivedAt.timeIntervalSince(request.receivedAt) }
    }

    /// Waits until `condition` holds: for other tasks and the provider to make progress, not
    /// for time to pass (the bound only stops a broken scenario).
    static func eventually(_ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            await Task.yield()
            try? await Task.sleep(for: .milliseconds(1))
        }
        return await condition()
    }

    @Test("A14 P1: the user code and verification URI are shown, the request stored first; the approval signs in like a browser login")
    func codeShownAndApproved() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            let prompts = Prompts()
            let storage = rig.storage
            let session = rig.session
            try await session.loginWithDevice { prompt in
                prompts.append(prompt)
                // P1: on disk, and the session authorizing, before the person sees the code.
                let stored = try? await storage.store.load()
                #expect(stored?.pendingDeviceAuthorization?.userCode == prompt.userCode)
                #expect(session.state == .authorizing)
                await Self.answer(prompt)
            }
            let prompt = try #require(prompts.all.first)
            #expect(prompts.all.count == 1)
            #expect(prompt.verificationURI == rig.idp.issuer + "/device")
            #expect(prompt.verificationURIComplete == rig.idp.issuer + "/device?user_code=" + prompt.userCode)
            #expect(prompt.userCode.count == 9 && !prompt.resumed)
            #expect(session.state == .authenticated)
            #expect(session.user?.subject == TestUser().subject)
            #expect(session.grantTokenType == .bearer)
            let request = try #require(await rig.idp.provider.requests(to: .deviceAuthorization).first)
            #expect(request.formValue("client_id") == "versola-test")
            #expect(request.formValue("scope")?.hasPrefix("openid") == true)
            #expect(request.headers["DPoP"] == nil)
            #expect(try await Self.pollInstants(rig) == [5])
            let after = try #require(try await rig.storage.store.load())
            #expect(after.pendingRequest == nil)
            #expect(after.refreshToken != nil)
            // The grant works like any other: a refresh, then the access token.
            rig.clock.advance(by: .seconds(200))
            _ = try await session.accessToken()
            #expect(await rig.tokenRequests(grant: "refresh_token") == 1)
        }
    }

    @Test("A14: authorization_pending keeps polling at the interval until the person approves")
    func pendingKeepsPolling() async throws {
        let rig = try await SessionRig(configure: { $0.deviceInterval = Self.heldInterval })
        try await withRig(rig) { rig in
            await rig.session.start()
            let prompts = Prompts()
            let session = rig.session
            let login = Task { () async throws -> Void in try await session.loginWithDevice { prompts.append($0) } }
            for round in 1...3 {
                #expect(await Self.eventually { rig.clock.suspendedSleeps == 1 }, "waiting for poll \(round)")
                #expect(await Self.polls(rig).count == round - 1)
                rig.clock.advance(by: .seconds(Self.heldInterval))
                #expect(await Self.eventually { await Self.polls(rig).count == round })
            }
            #expect(session.state == .authorizing)
            await Self.answer(try #require(prompts.all.first))
            #expect(await Self.eventually { rig.clock.suspendedSleeps == 1 })
            rig.clock.advance(by: .seconds(Self.heldInterval))
            try await login.value
            #expect(session.state == .authenticated)
            let step = Double(Self.heldInterval)
            #expect(try await Self.pollInstants(rig) == [step, 2 * step, 3 * step, 4 * step])
        }
    }

    @Test("A14: slow_down adds 5 s to the interval for good: the poll instants on virtual time")
    func slowDownAddsFiveSeconds() async throws {
        // The provider advertises 5 s but refuses polls closer than 12 s: two slow_downs.
        let rig = try await SessionRig(configure: {
            $0.deviceInterval = 5
            $0.deviceEnforcedInterval = 12
        })
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.loginWithDevice { await Self.answer($0) }
            #expect(rig.session.state == .authenticated)
            // Waits of 5, then 10, then 15 s: each slow_down lengthened every later wait.
            #expect(try await Self.pollInstants(rig) == [5, 15, 30])
        }
    }

    @Test("A14 E2 S4: access_denied at the verification page is reauthenticate(authorizationDenied); the request is dropped")
    func accessDenied() async throws {
        let rig = try await SessionRig(configure: { $0.autoLogin = false })
        try await withRig(rig) { rig in
            await rig.session.start()
            await #expect(throws: VersolaError.reauthenticate(.authorizationDenied)) {
                try await rig.session.loginWithDevice { await Self.answer($0, denies: true) }
            }
            #expect(rig.session.state == .unauthenticated)
            let stored = try await rig.storage.store.load()
            #expect(stored == nil)
            #expect(await Self.polls(rig).count == 1)
        }
    }

    @Test("A14 E1: expired_token from the provider is recoverable(pendingRequestExpired); the request is dropped")
    func expiredToken() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            await rig.idp.provider.arm(TestFaultRule(.token, .oauthError("expired_token")))
            await #expect(throws: VersolaError.recoverable(.pendingRequestExpired)) {
                try await rig.session.loginWithDevice()
            }
            #expect(rig.session.state == .unauthenticated)
            let stored = try await rig.storage.store.load()
            #expect(stored == nil)
        }
    }

    @Test("A14: once expires_in has passed locally the login ends pendingRequestExpired without another poll")
    func expiresLocally() async throws {
        let rig = try await SessionRig(configure: { $0.deviceCodeLifetime = 12 })
        try await withRig(rig) { rig in
            await rig.session.start()
            await #expect(throws: VersolaError.recoverable(.pendingRequestExpired)) {
                try await rig.session.loginWithDevice()
            }
            // Polls at 5 and 10 s; the next wait ends past the 12 s lifetime and sends nothing.
            #expect(try await Self.pollInstants(rig) == [5, 10])
            let stored = try await rig.storage.store.load()
            #expect(stored == nil)
        }
    }

    @Test("A14 P1 P2: a device login interrupted while it waits is resumed by a restarted process with the same code")
    func restartResumes() async throws {
        let rig = try await SessionRig(configure: { $0.deviceInterval = Self.heldInterval })
        try await withRig(rig) { rig in
            await rig.session.start()
            let prompts = Prompts()
            let first = rig.session
            let login = Task { () async throws -> Void in try await first.loginWithDevice { prompts.append($0) } }
            #expect(await Self.eventually { rig.clock.suspendedSleeps == 1 })
            // The process is stopped while it waits for its first poll (E7: a system cancel keeps the request).
            login.cancel()
            await #expect(throws: VersolaError.recoverable(.systemCancelled)) { try await login.value }
            let shown = try #require(prompts.all.first)
            #expect(try await rig.storage.store.load()?.pendingDeviceAuthorization?.userCode == shown.userCode)

            let restarted = try rig.restarted()
            await restarted.start()
            #expect(restarted.state == .authorizing)  // P2
            #expect(await restarted.pendingDeviceLogin?.userCode == shown.userCode)
            await Self.answer(shown)
            let again = Prompts()
            let resumed = Task { () async throws -> Void in try await restarted.loginWithDevice { again.append($0) } }
            #expect(await Self.eventually { rig.clock.suspendedSleeps == 1 })
            rig.clock.advance(by: .seconds(Self.heldInterval))
            try await resumed.value
            #expect(restarted.state == .authenticated)
            #expect(again.all.map(\.userCode) == [shown.userCode])
            #expect(again.all.first?.resumed == true)
            #expect(await rig.idp.provider.requests(to: .deviceAuthorization).count == 1, "no new code was asked for")
            #expect(await Self.polls(rig).count == 1)
        }
    }

    @Test("A14 P2: a device request that expired while no process ran is dropped at startup; resuming it is pendingRequestExpired")
    func expiredAcrossRestart() async throws {
        let rig = try await SessionRig(configure: { $0.deviceInterval = Self.heldInterval })
        try await withRig(rig) { rig in
            await rig.session.start()
            let first = rig.session
            let login = Task { () async throws -> Void in try await first.loginWithDevice() }
            #expect(await Self.eventually { rig.clock.suspendedSleeps == 1 })
            login.cancel()
            _ = try? await login.value
            #expect(try await rig.storage.store.load()?.pendingDeviceAuthorization != nil)
            rig.clock.advance(by: .seconds(601))  // past the provider's 600 s expires_in
            let restarted = try rig.restarted()
            await restarted.start()
            #expect(restarted.state == .unauthenticated)
            #expect(await restarted.pendingDeviceLogin == nil)
            let store = rig.storage.store
            #expect(await Self.eventually { ((try? await store.load()) ?? nil) == nil }, "the expired request is dropped")
            await #expect(throws: VersolaError.recoverable(.pendingRequestExpired)) {
                try await restarted.resumeDeviceLogin()
            }
            #expect(await Self.polls(rig).isEmpty)
        }
    }

    @Test("A14 R8: a 503 with Retry-After on a poll is waited out within the poll's budget, and polling goes on")
    func retryAfterOnAPoll() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            await rig.idp.provider.arm(TestFaultRule(.token, .respond(status: 503, headers: ["Retry-After": "3"])))
            try await rig.session.loginWithDevice { await Self.answer($0) }
            #expect(rig.session.state == .authenticated)
            // The poll at 5 s met the 503; the same poll went again 3 s later, as asked.
            #expect(try await Self.pollInstants(rig) == [5, 8])
        }
    }

    @Test("A14 R8: a Retry-After on a poll that does not fit its budget ends the login as a server error carrying it")
    func retryAfterTooLong() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            await rig.idp.provider.arm(TestFaultRule(.token, .respond(status: 503, headers: ["Retry-After": "60"])))
            do {
                try await rig.session.loginWithDevice { await Self.answer($0) }
                Issue.record("the login succeeded")
            } catch let error as VersolaError {
                guard case .recoverable(.server(let failure)) = error else {
                    Issue.record("expected a server error, got \(error)")
                    return
                }
                #expect(failure.status == 503)
                #expect(failure.retryAfter == .seconds(60))
            }
            #expect(await Self.polls(rig).count == 1, "the wait did not fit: nothing more was sent")
            #expect(rig.session.state == .unauthenticated)
        }
    }

    @Test("A14 A11 D2 D3: with DPoP, the device request and every poll carry a proof by the session's key, nonces as at the token endpoint")
    func dpopBound() async throws {
        let rig = try await SessionRig(
            usesDPoP: true,
            configure: {
                $0.requireDPoPNonce = true
                $0.deviceEnforcedInterval = 8
            })
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.loginWithDevice { await Self.answer($0) }
            #expect(rig.session.state == .authenticated)
            #expect(rig.session.grantTokenType == .dpop)
            let raw = try #require(try await rig.storage.store.load()?.dpopPrivateKey)
            let thumbprint = try DPoPKey(rawRepresentation: raw).thumbprint
            // The device request: a nonce demand, then the retry with the nonce (D3).
            let requests = await rig.idp.provider.requests(to: .deviceAuthorization)
            #expect(requests.count == 2)
            #expect(requests.last?.formValue("dpop_jkt") == thumbprint)
            #expect(requests.last?.dpopProofClaims["nonce"] != nil)
            // A slow_down, then the tokens: every poll with a proof by the same key, and the nonce.
            let polls = await Self.polls(rig)
            #expect(polls.count == 2)
            for poll in polls + requests {
                #expect(try DPoPScenarios.proofThumbprint(poll) == thumbprint)
            }
            for poll in polls {
                #expect(poll.dpopProofClaims["htu"] == rig.idp.issuer + "/token")
                #expect(poll.dpopProofClaims["nonce"] != nil)
            }
            // The token is bound: a resource accepts it with a proof.
            let response = try await rig.session.send(HTTPRequest(url: try #require(URL(string: rig.idp.resourceURL))))
            #expect(response.status == 200)
        }
    }

    @Test("A14 A13: a provider that advertises no device endpoint is refused before any request, as providerUnsupported")
    func providerWithoutDeviceEndpoint() async throws {
        let rig = try await SessionRig(configure: { $0.advertiseDeviceAuthorization = false })
        try await withRig(rig) { rig in
            await rig.session.start()
            do {
                try await rig.session.loginWithDevice()
                Issue.record("the login succeeded")
            } catch let error as VersolaError {
                guard case .configuration(.providerUnsupported(let reason, _)) = error else {
                    Issue.record("expected providerUnsupported, got \(error)")
                    return
                }
                #expect(reason.contains("device_authorization_endpoint"))
            }
            #expect(await rig.idp.provider.requests(to: .deviceAuthorization).isEmpty)
            #expect(rig.session.state == .unauthenticated)
        }
    }

    @Test("A14 E7: cancelLogin while polling is userCancelled and wipes the device request")
    func cancelWhilePolling() async throws {
        let rig = try await SessionRig(configure: { $0.deviceInterval = Self.heldInterval })
        try await withRig(rig) { rig in
            await rig.session.start()
            let session = rig.session
            let login = Task { () async throws -> Void in try await session.loginWithDevice() }
            #expect(await Self.eventually { rig.clock.suspendedSleeps == 1 })
            await session.cancelLogin()
            await #expect(throws: VersolaError.recoverable(.userCancelled)) { try await login.value }
            #expect(session.state == .unauthenticated)
            let stored = try await rig.storage.store.load()
            #expect(stored == nil)
        }
    }
}
