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
        guard freshness.verdict(for: held, monotonicNow: clock.monotonicNow, wallNow: clock.wallClockNow) == .serve
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
            if let readProblem, state == .unauthenticated { throw readProblem }
            throw .reauthenticate(.sessionExpired)
        }
        if !forceRefresh, let token = held.token {
            let clock = client.environment.clock
            switch freshness.verdict(for: token, monotonicNow: clock.monotonicNow, wallNow: clock.wallClockNow) {
            case .serve: return .token(token.value)
            case .deadlinesDisagree:
                let renewed = try await refresh(from: held.grant)
                if let fresh = machine.heldGrant?.token {
                    freshness.checkFreshToken(fresh, monotonicNow: clock.monotonicNow, wallNow: clock.wallClockNow)
                    apply(.accessTokenHeld(fresh, expiresAt: renewed.expiresAt))
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
            // S8: the access token expired and nothing can renew it. A grant restored from disk
            // whose access token this process never had is left to the process that has it.
            if !current.accessToken.isEmpty { await perform(apply(.grantExpiredWithoutRefreshToken)) }
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

    /// Spends the newest refresh token under the profile lock. The rotated token is stored
    /// before anything else can fail (P7, P10); a write that fails keeps it in memory, serves
    /// it, and writes it again later.
    private func performRefresh(from current: Grant) async throws(VersolaError) -> Grant {
        apply(.refreshStarted)
        var kept: String?
        do throws(VersolaError) {
            let renewed = try await exclusively { () throws(VersolaError) -> Grant in
                let stored = try await store.load()
                guard var record = unsaved?.record ?? stored, record.issuer == configuration.client.issuer,
                    record.clientID == configuration.client.clientID
                else {
                    // Signed out (or signed in elsewhere) by another process: nothing to spend.
                    throw .reauthenticate(.sessionExpired)
                }
                var base = current
                if let newest = record.refreshToken, newest != current.refreshToken {
                    // T2: another process rotated the token while we waited; use theirs, never replay ours.
                    base.refreshToken = newest
                    if let raw = record.dpopPrivateKey { base.dpopKey = try? DPoPKey(rawRepresentation: raw) }
                }
                guard let refreshToken = base.refreshToken else { throw .reauthenticate(.sessionExpired) }
                if let marker = record.refreshInFlight, marker.concerns(refreshToken: refreshToken) {
                    client.environment.log.record(
                        VersolaLogEvent(.warning, "a previous refresh of this token did not finish; trying it once more"))
                }
                record.refreshInFlight = RefreshInFlight(refreshToken: refreshToken, startedAt: client.environment.clock.wallClockNow)
                try await store.save(record)
                knownGeneration = await store.generation()
                let answer: RefreshAnswer
                do throws(VersolaError) {
                    answer = try await client.requestRefresh(base)
                } catch {
                    if Self.nothingWasProcessed(error) {
                        record.refreshInFlight = nil
                        await saveOrHold(record, replacing: refreshToken)
                    }
                    throw error
                }
                // P7, P10: the answer arrived, so the old token is spent: store the new one first.
                if let rotated = answer.rotatedRefreshToken {
                    record.refreshToken = rotated
                    kept = rotated
                }
                record.refreshInFlight = nil
                record.dpopNonces = client.dpopNonces.snapshot()
                await saveOrHold(record, replacing: refreshToken)
                let renewed = try await client.acceptRefresh(answer)
                record.refreshToken = renewed.refreshToken
                record.idToken = renewed.idToken
                record.subject = renewed.claims?.subject ?? record.subject
                record.dpopPrivateKey = renewed.dpopKey?.rawRepresentation
                await saveOrHold(record, replacing: refreshToken)
                return renewed
            }
            await perform(apply(.refreshSucceeded(held(renewed))))
            return renewed
        } catch {
            await perform(apply(.refreshFailed(error, keptRefreshToken: kept)))
            throw error
        }
    }

    /// Whether a failed refresh provably never reached the provider (R6), so its in-flight
    /// note can go.
    private static func nothingWasProcessed(_ error: VersolaError) -> Bool {
        switch error {
        case .recoverable(.network(let failure)): !failure.requestBytesWritten
        case .recoverable(.server(let failure)): [408, 429, 503].contains(failure.status)
        case .reauthenticate: true
        default: false
        }
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
    /// `stepUpRequired` state (S5, A10). Every other status is returned (E10, R7).
    public func send(_ request: HTTPRequest) async throws(VersolaError) -> HTTPResponse {
        _ = try await accessToken()
        guard let current = machine.heldGrant?.grant else { throw .reauthenticate(.sessionExpired) }
        let first = try await client.send(request, grant: current)
        guard first.status == 401 else { return first }
        if let challenge = try WWWAuthenticate(headers: first.headers).validatedStepUpChallenge() {
            await perform(apply(.stepUpDemanded(challenge)))
            throw .stepUp(challenge)
        }
        let renewed = try await refresh(from: current)
        let second = try await client.send(request, grant: renewed)
        guard second.status == 401 else { return second }
        if let challenge = try WWWAuthenticate(headers: second.headers).validatedStepUpChallenge() {
            await perform(apply(.stepUpDemanded(challenge)))
            throw .stepUp(challenge)
        }
        throw .reauthenticate(.sessionRejected)
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

    /// Takes the access token of a login another process just finished on this profile (the
    /// command hands it to the agent), so that a grant without a refresh token can be served
    /// and the first token after a login needs no refresh. Accepted only for the grant now on
    /// disk (its ID token must match); returns whether it was.
    package func adoptAccessToken(_ value: String, expiresAt: Date?, idToken: String?) async -> Bool {
        await resync()
        guard state == .authenticated, var grant = machine.heldGrant?.grant, grant.idToken == idToken, !value.isEmpty
        else { return false }
        grant.accessToken = value
        grant.expiresAt = expiresAt
        guard let token = held(grant).token else { return false }
        apply(.accessTokenHeld(token, expiresAt: expiresAt))
        return true
    }
}
