import VersolaHTTP
import Foundation

extension Session {
    /// Signs in through the browser (S4). Over a live session, a failure keeps that session
    /// (S4, P9). When another process completes this login (`versola handle-redirect`, L2),
    /// the call returns as soon as that process has stored the new session.
    /// - Parameters:
    ///   - parameters: extra authorization parameters.
    ///   - present: called once the browser was (or could not be) started, to show the URL (L1).
    /// - Throws: any `VersolaError`; `.recoverable(.unlockRequired)` while locked; a storage
    ///   error, before any browser opens, when the pending request cannot be stored (P1).
    public func login(
        _ parameters: AuthorizationParameters = AuthorizationParameters(),
        present: (@Sendable (AuthorizationPrompt) async -> Void)? = nil
    ) async throws(VersolaError) {
        try await authorize(parameters, event: .loginStarted, present: present)
    }

    /// Answers a step-up challenge with a new authorization carrying its `acr_values` and
    /// `max_age` (S5).
    public func stepUp(
        _ challenge: StepUpChallenge, present: (@Sendable (AuthorizationPrompt) async -> Void)? = nil
    ) async throws(VersolaError) {
        try await authorize(AuthorizationParameters(stepUp: challenge), event: .stepUpStarted, present: present)
    }

    /// Cancels the login in progress on the person's behalf: it ends `userCancelled`, the
    /// pending request is dropped and the state returns to what it was before (E7). A pending
    /// request restored from disk, which no login of this process runs, is dropped too (S14).
    ///
    /// A Cancel button runs the login in a task and calls this:
    /// ```swift
    /// let login = Task { try await session.login() }
    /// // … the person presses Cancel:
    /// await session.cancelLogin()
    /// _ = await login.result               // .failure(VersolaError.recoverable(.userCancelled))
    /// ```
    public func cancelLogin() async {
        await perform(apply(.loginCancelled))
    }

    /// Hands a redirect the person pasted to this process's login in progress, and says why
    /// it was not taken (another sign-in's `state`, not a response, no login waiting); nil
    /// when the login took it. ``deliverRedirect(_:)`` also completes a request restored from disk.
    public nonisolated func offerRedirect(_ url: String) async -> RedirectRefusal? {
        await client.offerRedirect(url)
    }

    /// Whether a login binds its tokens to a DPoP key (A11): with `.auto`, exactly when the
    /// provider advertises ES256 for DPoP; never with `.off`. Reads the provider's metadata.
    public nonisolated func bindsTokensToDPoP() async throws(VersolaError) -> Bool {
        try await client.resolvedDPoP()
    }

    /// The provider's metadata (discovery, A1), fetched once and cached.
    public nonisolated func providerMetadata() async throws(VersolaError) -> ProviderMetadata {
        try await client.metadata()
    }

    private func authorize(
        _ parameters: AuthorizationParameters, event: SessionEvent,
        present: (@Sendable (AuthorizationPrompt) async -> Void)?
    ) async throws(VersolaError) {
        try checkUnlocked()
        let start = apply(event)
        if case .refused(let refusal) = start.result { throw refusal.loginError }
        await perform(start)
        do {
            // A key made here (not inside the client) can be stored with the pending request,
            // so a redirect delivered after a restart can still finish the login (P1, P2, D1).
            let key = try await client.resolvedDPoP() ? try DPoPKey.generate() : nil
            let newGrant = try await client.login(
                parameters, timeout: configuration.loginTimeout, dpopKey: key,
                onPending: { request throws(VersolaError) in try await self.storePending(.browser(request), key: key) },
                present: present)
            try await adopt(newGrant)
        } catch {
            try await loginFailed(error)
        }
    }

    /// Hands a login's failure to the machine and throws it, unless another process completed
    /// the login meanwhile (L2): then the login ended well.
    func loginFailed(_ error: VersolaError) async throws(VersolaError) {
        let outcome = apply(.authorizationFailed(error))
        if outcome.result == .refused(.loginCompletedElsewhere) { return }
        await perform(outcome)
        throw error
    }

    /// P1: the pending request is on disk before the browser opens (or the user code is
    /// shown). Over a live grant the grant's own key keeps its slot (P9); such a re-login
    /// cannot be resumed by another process, only completed by this one.
    ///
    /// P12: over a record that no longer decrypts, nothing is written until the sign-in
    /// succeeds (the record stays as it is until then); the request is held by this login alone.
    func storePending(_ request: PendingRequest, key: DPoPKey?) async throws(VersolaError) {
        do {
            try await write { stored in
                var record = stored ?? SessionRecord(issuer: request.issuer, clientID: request.clientID)
                record.pendingRequest = request
                if !record.holdsGrant { record.dpopPrivateKey = key?.rawRepresentation }
                return record
            }
        } catch .reauthenticate(.credentialsInvalidated) {
            // Held in memory only: this process's login completes it; a restart starts over.
        }
        apply(.pendingStored(request))
    }

    /// Delivers a redirect to the login in progress or to a pending request restored from
    /// disk (P2, L2): pasted by the person, or handed over by another process.
    /// - Throws: `.configuration(.stateMismatch)` for a response to another sign-in while this
    ///   process's login waits (the login goes on waiting, A4); the login's errors otherwise.
    public func deliverRedirect(_ url: String) async throws(VersolaError) {
        switch await client.offerRedirect(url) {
        case nil, .alreadyFinished?: return
        case .noLoginWaiting?: break
        case .otherRequest?, .notAResponse?: throw .configuration(.stateMismatch)
        }
        try checkUnlocked()
        guard let pendingRequest = machine.pendingRequest, state == .authorizing else {
            throw .recoverable(.pendingRequestExpired)
        }
        // A device login waits for an approval, not a redirect: this one answers another sign-in.
        guard case .browser(let pending) = pendingRequest else { throw .configuration(.stateMismatch) }
        if pending.isExpired(at: client.environment.clock.wallClockNow) {
            await perform(apply(.pendingExpired))
            throw .recoverable(.pendingRequestExpired)
        }
        // L2, L6: garbage, or a response to another sign-in, changes nothing: the request waits on.
        let redirect = try AuthorizationRedirect(url: url)
        guard redirect.isAuthorizationResponse, redirect.carries(state: pending.state) else {
            throw .configuration(.stateMismatch)
        }
        do {
            let metadata = try await client.metadata()
            let storedKey = try await store.load()?.dpopPrivateKey
            let key = try storedKey.map { (raw) throws(VersolaError) in try DPoPKey(rawRepresentation: raw) }
            let newGrant = try await client.complete(
                redirect, pending: pending, issuerParameterRequired: metadata.authorizationResponseIssParameterSupported,
                dpopKey: key)
            try await adopt(newGrant)
        } catch {
            await perform(apply(.authorizationFailed(error)))
            throw error
        }
    }

    /// P9: everything validated; swap identities in one write, then publish. A grant without
    /// a refresh token keeps its access token in the record, its only credential (P13). A write that
    /// fails fails the login and changes nothing (P11): the new refresh token was never spent.
    /// P12: a record that no longer decrypts is moved aside by this write, not in its way.
    ///
    /// S15: a grant that lost a race (another process wrote a session, and dropped this login's
    /// pending request, while this login's code exchange ran) never replaces that newer session:
    /// it is revoked where the provider allows, and this session follows the newer one.
    func adopt(_ newGrant: Grant) async throws(VersolaError) {
        let record = SessionRecord(
            issuer: configuration.client.issuer, clientID: configuration.client.clientID,
            subject: newGrant.claims?.subject, refreshToken: newGrant.refreshToken, idToken: newGrant.idToken,
            dpopPrivateKey: newGrant.dpopKey?.rawRepresentation, dpopNonces: client.dpopNonces.snapshot(),
            accessToken: newGrant.storedAccessToken)
        let ours = machine.pendingRequest
        var lostRace = false
        try await write(replacingUnreadable: true) { stored in
            lostRace = Self.supersedes(stored, pending: ours)
            return lostRace ? stored : record
        }
        if lostRace {
            client.environment.log.record(
                VersolaLogEvent(.info, "another sign-in wrote a newer session first; this one's grant is revoked"))
            _ = await client.revoke(newGrant)
            await resync()
            return
        }
        if machine.signInFixesReadProblem { publisher.setProblem(nil, setAside: await store.setAsideRecords()) }
        await perform(apply(.authorizationSucceeded(held(newGrant))))
    }

    /// S15: whether `stored` is a session written by another sign-in after this login stored
    /// `pending` (which that sign-in then dropped), so this login's grant must not replace it.
    /// A login in progress always has a pending request (P1); with none, this session already
    /// follows the other sign-in's session (L2).
    static func supersedes(_ stored: SessionRecord?, pending: PendingRequest?) -> Bool {
        guard let stored, stored.holdsGrant else { return false }
        guard let pending else { return true }
        return stored.pendingRequest != pending
    }

    /// `grant` with its access token held from now on (T1, T3).
    func held(_ grant: Grant) -> HeldGrant {
        HeldGrant(minting: grant, at: clockReading)
    }

    /// Both clocks now.
    var clockReading: ClockReading {
        let clock = client.environment.clock
        return ClockReading(monotonic: clock.monotonicNow, wall: clock.wallClockNow)
    }
}
