import VersolaHTTP
import Foundation

extension Session {
    /// A valid access token (T1): the cached one while it has more than the margin left,
    /// else a refreshed one. Never an expired token.
    ///
    /// The cached path takes no actor hop (a lock-protected read), and callers waiting for a
    /// refresh in flight wait outside the actor, so a thousand of them resume in parallel.
    /// - Parameter forceRefresh: skip the cache (not the single flight nor the R8 cooldown, T4).
    /// - Throws: `.reauthenticate(.sessionExpired)` when there is no grant or it cannot be
    ///   renewed without a person (S8); the refresh's errors otherwise.
    public nonisolated func accessToken(forceRefresh: Bool = false) async throws(VersolaError) -> String {
        if !forceRefresh, let token = servableCachedToken() { return token }
        // Callers that miss the cache share one task: only it queues on the actor; the others
        // wait for it in parallel (T2). A forced caller joins only a forced task (T4).
        let task = tokenCache.withLock { cache in
            cache.joinLookup(forced: forceRefresh) {
                let result = await self.lookUpAccessToken(forceRefresh: forceRefresh)
                self.tokenCache.withLock { $0.endLookup(forced: forceRefresh) }
                return result
            }
        }
        return try await task.value.get()
    }

    /// The token of a lookup that missed the cache: the held one, or a refresh's.
    private nonisolated func lookUpAccessToken(forceRefresh: Bool) async -> Result<String, VersolaError> {
        do throws(VersolaError) {
            switch try await accessTokenSlowPath(forceRefresh: forceRefresh) {
            case .token(let value): return .success(value)
            case .refreshing(let refresh): return await refresh.value.map(\.accessToken)
            }
        } catch {
            return .failure(error)
        }
    }

    /// The cached token when it may be served now, read without the actor.
    private nonisolated func servableCachedToken() -> String? {
        servableAccessToken()?.value
    }

    /// The access token held in memory with its type and expiry when it may be served now
    /// (T1, T3), read without the actor (a lock): nil when a caller must go through
    /// ``currentAccessToken(forceRefresh:)`` (none held, or it needs a refresh).
    package nonisolated func servableAccessToken() -> AccessToken? {
        guard let (held, token, freshness) = tokenCache.withLock({ cache in
            cache.held.flatMap { held in cache.described.map { (held, $0, cache.freshness) } }
        })
        else { return nil }
        let clock = client.environment.clock
        guard freshness.verdict(for: held, monotonicNow: clock.monotonicNow, wallNow: clock.wallClockNow, renewable: token.renewable)
            == .serve
        else { return nil }
        return token
    }

    enum TokenSource {
        case token(String)
        case refreshing(SingleFlight<Grant>.Work)
    }

    private func accessTokenSlowPath(forceRefresh: Bool) async throws(VersolaError) -> TokenSource {
        try checkUnlocked()
        await flushUnsaved()
        guard let held = machine.heldGrant, state.holdsGrant, state != .loggingOut else {
            // A record that could not be read says why, rather than a bare "signed out".
            if let readProblem = machine.readProblem, state == .unauthenticated { throw readProblem }
            throw .reauthenticate(.sessionExpired)
        }
        if !forceRefresh, let token = held.token {
            switch machine.verdict(for: token, at: clockReading, renewable: held.grant.refreshToken != nil) {
            case .serve: return .token(token.value)
            case .deadlinesDisagree:
                let renewed = try await refresh(from: held.grant)
                if let fresh = machine.heldGrant?.token {
                    apply(.accessTokenHeld(fresh, expiresAt: renewed.expiresAt, minted: clockReading))
                }
                return .token(renewed.accessToken)
            case .expired: break
            }
        }
        return .refreshing(try await refreshTask(from: held.grant))
    }

    /// One refresh at a time (T2): concurrent callers share the one in flight.
    func refresh(from current: Grant) async throws(VersolaError) -> Grant {
        try await refreshTask(from: current).value.get()
    }

    /// The refresh in flight, or a new one (S8: none without a refresh token). The refresh
    /// ends its own flight, since callers of ``accessToken(forceRefresh:)`` await it outside
    /// the actor.
    private func refreshTask(from current: Grant) async throws(VersolaError) -> SingleFlight<Grant>.Work {
        if let running = refreshFlight.current { return running }
        guard current.refreshToken != nil else {
            // S8: the access token expired and nothing can renew it (the machine says whether
            // that ends the grant it holds).
            await perform(apply(.grantExpiredWithoutRefreshToken))
            throw .reauthenticate(.sessionExpired)
        }
        return refreshFlight.join {
            let result = await self.refreshResult(from: current)
            await self.refreshEnded()
            return result
        }
    }

    private func refreshResult(from current: Grant) async -> Result<Grant, VersolaError> {
        do throws(VersolaError) { return .success(try await performRefresh(from: current)) } catch { return .failure(error) }
    }

    private func refreshEnded() {
        refreshFlight.end()
    }

    /// Spends the newest refresh token under the profile lock, in the order ``RefreshSequence``
    /// returns (P7, P10, R6): the rotated token is stored before anything else can fail; a
    /// write that fails keeps it in memory, serves it, and writes it again later. The machine
    /// carries the sequence (in `refreshing`, or a logout or lock that interrupts it); this only
    /// feeds it what each step came to, until it hands back the result.
    private func performRefresh(from current: Grant) async throws(VersolaError) -> Grant {
        let sequence = RefreshSequence(current: current, issuer: configuration.client.issuer, clientID: configuration.client.clientID)
        guard apply(.refreshStarted(sequence)).accepted else {
            // No grant is held to renew here (signed out, a login under way), or locked (S10).
            throw state == .locked ? .recoverable(.unlockRequired) : .reauthenticate(.sessionExpired)
        }
        var ended: (result: Result<Grant, VersolaError>, kept: String?)?
        do throws(VersolaError) {
            try await exclusively { () throws(VersolaError) in
                var event: RefreshEvent? = .started
                while let next = event {
                    let effects = await perform(apply(.refresh(next)))
                    event = effects.refreshEvent
                    ended = effects.refreshEnded ?? ended
                }
            }
        } catch {
            if ended == nil { ended = await perform(apply(.refresh(.failed(error)))).refreshEnded }
        }
        refreshAnswer = nil
        // The session it renewed ended under it (S7, S13): there is nothing left to apply.
        guard let ended else { throw .reauthenticate(.sessionExpired) }
        switch ended {
        case (.success(let renewed), _):
            await perform(apply(.refreshSucceeded(held(renewed))))
            return renewed
        case (.failure(let error), let kept):
            await perform(apply(.refreshFailed(error, keptRefreshToken: kept)))
            throw error
        }
    }

    /// Carries out one step of a refresh (the profile lock is held), for ``perform(_:)``:
    /// what came of it when it answers or fails, nil when the next step follows.
    func refreshStep(_ action: RefreshAction) async -> RefreshEvent? {
        do throws(VersolaError) {
            switch action {
            case .readRecord:
                return .recordRead(stored: try await store.load(), now: client.environment.clock.wallClockNow)
            case .warnUnfinishedRefresh:
                client.environment.log.record(
                    VersolaLogEvent(.warning, "a previous refresh of this token did not finish; trying it once more"))
            case .writeNote(let record):
                try await store.save(record)
                knownGeneration = await store.generation()
            case .send(let grant):
                do throws(VersolaError) {
                    let received = try await client.requestRefresh(grant)
                    refreshAnswer = received
                    return .answered(
                        rotatedRefreshToken: received.rotatedRefreshToken, dpopNonces: client.dpopNonces.snapshot())
                } catch {
                    return .requestFailed(error)
                }
            case .save(let record, let replacing):
                await saveOrHold(record, replacing: replacing)
            case .check:
                guard let received = refreshAnswer else { return .failed(.reauthenticate(.sessionExpired)) }
                return .checked(try await client.acceptRefresh(received))
            }
        } catch {
            return .failed(error)
        }
        return nil
    }

    // MARK: Resources

    /// The UserInfo claims (A8), refreshing once on a 401.
    public func userInfo() async throws(VersolaError) -> UserInfo {
        _ = try await accessToken()
        guard let grant = machine.heldGrant?.grant else { throw .reauthenticate(.sessionExpired) }
        do {
            return try await client.userInfo(grant)
        } catch .reauthenticate(.sessionRejected) {
            let renewed = try await refresh(from: grant)
            return try await client.userInfo(renewed)
        }
    }

    /// Sends an application request with the access token (and DPoP proof): a 401 gets one
    /// refresh and one replay, a second 401 is `reauthenticate(sessionRejected)` (E10); a
    /// 401 with `insufficient_user_authentication` is `stepUp(challenge)` and the
    /// `stepUpRequired` state (S5, A10); a 401 whose challenge names scopes the held token
    /// lacks (`insufficient_scope` or `scope`) is `stepUp` with the held and the named scopes
    /// together, without a refresh, which would not add scope (A20). Every other status is
    /// returned (E10, R7).
    public func send(_ request: HTTPRequest) async throws(VersolaError) -> HTTPResponse {
        _ = try await accessToken()
        guard let current = machine.heldGrant?.grant else { throw .reauthenticate(.sessionExpired) }
        let first = try await client.send(request, grant: current)
        guard first.status == 401 else { return first }
        try await stepUpWhenDemanded(by: first, holding: current, refreshed: false)
        let renewed = try await refresh(from: current)
        let second = try await client.send(request, grant: renewed)
        guard second.status == 401 else { return second }
        try await stepUpWhenDemanded(by: second, holding: renewed, refreshed: true)
        throw .reauthenticate(.sessionRejected)
    }

    /// Throws `stepUp` when a 401 demands a stronger sign-in (A10) or more scope than
    /// `grant` holds (A20): the scopes granted (else those asked for), then the named ones.
    /// A 401 `invalid_token` is about the token itself: it names more scope only once a
    /// refreshed token is refused too.
    private func stepUpWhenDemanded(
        by response: HTTPResponse, holding grant: Grant, refreshed: Bool
    ) async throws(VersolaError) {
        let header = WWWAuthenticate(headers: response.headers)
        if let challenge = try header.validatedStepUpChallenge() {
            await perform(apply(.stepUpDemanded(challenge)))
            throw .stepUp(challenge)
        }
        let tokenRefused = header.challenges.contains { $0.error == "invalid_token" }
        guard refreshed || !tokenRefused else { return }
        let held = grant.scope.map { $0.split(separator: " ").map(String.init) } ?? configuration.client.scopes
        let lacking = header.scopesLacking(from: Set(held))
        guard !lacking.isEmpty else { return }
        throw .stepUp(StepUpChallenge(scopes: held + lacking))
    }
}

extension Session {
    /// A valid access token with its type and expiry (see ``accessToken(forceRefresh:)``).
    public func currentAccessToken(forceRefresh: Bool = false) async throws(VersolaError) -> AccessToken {
        let value = try await accessToken(forceRefresh: forceRefresh)
        let grant = machine.heldGrant?.grant
        let matches = grant?.accessToken == value
        return AccessToken(
            value: value, tokenType: grant?.tokenType ?? .bearer,
            expiresAt: matches ? grant?.expiresAt ?? HeldAccessToken.expiration(of: value) : HeldAccessToken.expiration(of: value),
            renewable: grant?.refreshToken != nil)
    }

    /// The access token this session holds in memory, without refreshing or any other
    /// request; nil when it holds none (restored from disk, or signed out).
    package func heldAccessToken() -> AccessToken? {
        guard let held = machine.heldGrant, state == .authenticated else { return nil }
        return held.accessToken
    }

    /// Whether another process can renew this session's grant from the store alone (the
    /// agent's refresh process does): a grant with a refresh token is held and usable, no
    /// refresh of this session's own is under way, and no renewed record waits in memory for
    /// the store to accept it (P10: only this process holds that refresh token).
    package var renewableFromStore: Bool {
        guard let held = machine.heldGrant, state == .authenticated || state == .refreshing else { return false }
        return held.grant.refreshToken != nil && machine.heldBack == nil && refreshFlight.current == nil
    }

    /// Takes the access token of a login another process just finished on this profile (the
    /// command hands it to the agent), so that a grant without a refresh token can be served
    /// and the first token after a login needs no refresh. Accepted only for the grant now on
    /// disk (its ID token must match); returns whether it was.
    package func adoptAccessToken(_ value: String, expiresAt: Date?, idToken: String?) async -> Bool {
        await resync()
        return apply(.accessTokenOffered(value, expiresAt: expiresAt, idToken: idToken, at: clockReading)).accepted
    }
}
