import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaTestIdP

/// Scenarios for the clock rules (T3), locked storage (S10), the states themselves
/// (S1, S2) and the error hierarchy's promises (E5, E6).
@Suite(.serialized) struct SessionEdgeScenarios {
    @Test("T3: a device clock an hour fast costs one extra refresh, then the local deadline is trusted")
    func fastClock() async throws {
        let rig = try await SessionRig(configure: {
            $0.jwtAccessTokens = true
            $0.issueIDTokenOnRefresh = false
        })
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            rig.clock.setWallClock(rig.clock.wallClockNow.addingTimeInterval(3600))
            let first = try await rig.session.accessToken()
            #expect(await rig.tokenRequests(grant: "refresh_token") == 1)
            // The brand-new token also reads expired by exp: from now on only the local deadline counts.
            #expect(try await rig.session.accessToken() == first)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 1)
            // The local deadline still expires tokens.
            rig.clock.advance(by: .seconds(200))
            #expect(try await rig.session.accessToken() != first)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 2)
        }
    }

    @Test("T3: a clock corrected after minting changes nothing: the local deadline is monotonic")
    func correctedClock() async throws {
        let rig = try await SessionRig(configure: { $0.jwtAccessTokens = true })
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let first = try await rig.session.accessToken()
            rig.clock.setWallClock(rig.clock.wallClockNow.addingTimeInterval(-3600))
            #expect(try await rig.session.accessToken() == first)
            #expect(await rig.tokenRequests(grant: "refresh_token") == 0)
        }
    }

    @Test("S10: a locked passphrase store gives locked and unlockRequired; unlocking returns the session intact")
    func lockedStore() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            let passphrase = try SessionStorage(profile: "vault", keySource: .passphrase, directories: rig.directories)
            let source = try #require(passphrase.passphraseKeySource)
            try await source.unlock(passphrase: "correct horse battery staple")
            let configuration = SessionConfiguration(client: rig.configuration.client)
            let first = try SessionRig.makeSession(
                configuration: configuration, storage: passphrase, clock: rig.clock, browser: rig.browser)
            await first.start()
            try await first.login()

            // A new process: the passphrase is not known yet.
            let later = try SessionStorage(profile: "vault", keySource: .passphrase, directories: rig.directories)
            let session = try SessionRig.makeSession(configuration: configuration, storage: later, clock: rig.clock, browser: rig.browser)
            await session.start()
            #expect(session.state == .locked)
            #expect(session.state.holdsGrant)
            await #expect(throws: VersolaError.recoverable(.unlockRequired)) { _ = try await session.accessToken() }
            await #expect(throws: VersolaError.recoverable(.unlockRequired)) { try await session.login() }
            // A wrong passphrase leaves it locked and wipes nothing.
            let laterSource = try #require(later.passphraseKeySource)
            let thrown = await #expect(throws: VersolaError.self) { try await laterSource.unlock(passphrase: "wrong") }
            #expect(thrown?.category == "recoverable" && thrown?.cause == "unlockRequired", "got \(String(describing: thrown))")
            #expect(FileManager.default.fileExists(atPath: later.store.recordFile.path))
            try await laterSource.unlock(passphrase: "correct horse battery staple")
            await session.unlocked()
            #expect(session.state == .authenticated)
            #expect(session.user?.subject == TestUser().subject)
            _ = try await session.accessToken()
        }
    }

    @Test("S1 S2 S3: every state published is one of the seven, and the user stays known while a grant is held")
    func onlySevenStates() async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            let log = StateLog(rig.session)
            try await rig.session.login()
            _ = try await rig.session.accessToken(forceRefresh: true)
            await rig.idp.provider.arm(TestFaultRule(.resource, .stepUp(acrValues: "urn:example:mfa", maxAge: nil)))
            _ = try? await rig.session.send(HTTPRequest(url: URL(string: rig.idp.resourceURL)!))
            #expect(rig.session.state == .stepUpRequired)
            #expect(rig.session.user != nil)
            await rig.session.logout()
            await log.wait(for: 8)
            let seen = log.all
            #expect(seen.allSatisfy { SessionState.allCases.contains($0) })
            #expect(seen == [.unauthenticated, .authorizing, .authenticated, .refreshing, .authenticated, .stepUpRequired, .loggingOut, .unauthenticated])
        }
    }

    @Test(
        "E6 E9: invalid_grant is grantRejected whatever the status and description",
        arguments: [400, 401, 403])
    func oneCategoryPerCode(status: Int) async throws {
        let rig = try await SessionRig()
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let body = #"{"error":"invalid_grant","error_description":"temporarily unavailable, try again"}"#
            await rig.idp.provider.arm(TestFaultRule(.token, .respond(status: status, body: body)))
            do throws(VersolaError) {
                _ = try await rig.session.accessToken(forceRefresh: true)
                Issue.record("a refused refresh succeeded")
            } catch {
                #expect(error == .reauthenticate(.grantRejected))
            }
        }
    }

    @Test("E5 E13: the hierarchy is closed: every case has one category and one wire name")
    func closedHierarchy() {
        let samples: [VersolaError] = [
            .recoverable(.userCancelled), .recoverable(.systemCancelled), .recoverable(.pendingRequestExpired),
            .recoverable(.network(NetworkFailure(kind: .timedOut, requestBytesWritten: true, origin: "o"))),
            .recoverable(.server(ServerFailure(status: 503, failedRequests: 1, elapsed: .zero))),
            .recoverable(.unlockRequired), .recoverable(.nonceLoop), .recoverable(.storageUnavailable("disk full")),
            .recoverable(.signingKeyUnavailable(retryAfter: .seconds(30))),
            .reauthenticate(.authorizationDenied), .reauthenticate(.interactionRequired),
            .reauthenticate(.credentialsInvalidated), .reauthenticate(.grantRejected),
            .reauthenticate(.sessionRejected), .reauthenticate(.sessionExpired),
            .stepUp(StepUpChallenge(acrValues: ["a"], maxAge: 1)),
            .configuration(.stateMismatch), .configuration(.issuerMismatch), .configuration(.idTokenRejected("r")),
            .configuration(.providerUnsupported("r")), .configuration(.invalidConfiguration("r")),
            .configuration(.authorizationRejected("r")), .configuration(.discoveryIssuerMismatch(expected: "a", actual: "b")),
        ]
        for error in samples {
            #expect(error.category == Self.category(error))
            #expect(error.cause == error.name.rawValue)
            #expect(error.name.category == error.category)
        }
        // The engine's one table (VersolaErrorName) names exactly E13's causes, and every one
        // has a sample here: a cause added to the enums without a sample leaves a name unseen.
        #expect(VersolaErrorName.allCases.map(\.rawValue) == Self.everyCause)
        #expect(Set(samples.map(\.name)) == Set(VersolaErrorName.allCases))
        #expect(samples.count == Self.everyCause.count)
    }

    /// Every cause's wire name as SPEC E13 lists them.
    static let everyCause = [
        "userCancelled", "systemCancelled", "pendingRequestExpired", "network", "server", "unlockRequired", "nonceLoop",
        "storageUnavailable", "signingKeyUnavailable", "authorizationDenied", "interactionRequired", "credentialsInvalidated", "grantRejected",
        "sessionRejected", "sessionExpired", "stepUp", "stateMismatch", "issuerMismatch", "idTokenRejected",
        "providerUnsupported", "invalidConfiguration", "authorizationRejected", "discoveryIssuerMismatch",
    ]

    /// The category of `error`, read from its case (E5: four categories, nothing else).
    static func category(_ error: VersolaError) -> String {
        switch error {
        case .recoverable: "recoverable"
        case .reauthenticate: "reauthenticate"
        case .stepUp: "stepUp"
        case .configuration: "configuration"
        }
    }
}

@Suite(.serialized) struct DPoPSessionScenarios {
    @Test("D1 P5 D3: a DPoP session keeps its key and nonces sealed on disk; after a restart the first refresh carries both")
    func keyAndNoncesSurviveRestart() async throws {
        let rig = try await SessionRig(usesDPoP: true, configure: {
            $0.requireDPoP = true
            $0.requireDPoPNonce = true
        })
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let record = try #require(try await rig.storage.store.load())
            let raw = try #require(record.dpopPrivateKey)
            #expect(!record.dpopNonces.isEmpty)
            let key = try DPoPKey(rawRepresentation: raw)
            let restarted = try rig.restarted()
            await restarted.start()
            let before = await rig.idp.provider.requests(to: .token).count
            _ = try await restarted.accessToken()
            let refreshes = await rig.idp.provider.requests(to: .token).dropFirst(before)
            // The restored nonce is used at once: no use_dpop_nonce round trip (D3).
            #expect(refreshes.count == 1)
            let proof = try #require(refreshes.first?.dpopProofClaims)
            #expect(proof["nonce"] != nil)
            #expect(try await rig.storage.store.load()?.dpopPrivateKey == key.rawRepresentation)
        }
    }

    @Test("P6 D1: logout destroys the DPoP key; the next login binds a new one")
    func logoutDestroysKey() async throws {
        let rig = try await SessionRig(usesDPoP: true, configure: { $0.requireDPoP = true })
        try await withRig(rig) { rig in
            await rig.session.start()
            try await rig.session.login()
            let first = try #require(try await rig.storage.store.load()?.dpopPrivateKey)
            await rig.session.logout()
            #expect(try await rig.storage.store.load() == nil)
            try await rig.session.login()
            let second = try #require(try await rig.storage.store.load()?.dpopPrivateKey)
            #expect(first != second)
        }
    }

    @Test("P2 D4 L2: a DPoP login interrupted by a restart completes with the stored key")
    func restartedDPoPLogin() async throws {
        let rig = try await SessionRig(browserFollows: false, usesDPoP: true, configure: { $0.requireDPoP = true })
        try await withRig(rig) { rig in
            await rig.session.start()
            let session = rig.session
            let login = Task { () async throws -> Void in try await session.login() }
            while rig.browser.opened.isEmpty { await Task.yield() }
            let url = try #require(rig.browser.opened.first)
            let restarted = try rig.restarted()
            await restarted.start()
            #expect(restarted.state == .authorizing)
            let landing = try await HeadlessUserAgent(transport: StopAtLoopback()).complete(authorizationURL: url)
            try await restarted.deliverRedirect(try #require(landing.visited.last))
            #expect(restarted.state == .authenticated)
            let response = try await restarted.send(HTTPRequest(url: URL(string: rig.idp.resourceURL)!))
            #expect(response.status == 200)
            login.cancel()
        }
    }
}
