import VersolaHTTP
import Foundation

extension OpenIDClient {
    /// Runs a device flow login (RFC 8628, A14): for a machine without a browser (over SSH, a
    /// console). The person opens the verification page on any other device, enters the user
    /// code and approves; meanwhile the engine polls the token endpoint.
    ///
    /// - It asks the device authorization endpoint for a code (`client_id`, `scope`; with
    ///   DPoP a proof and `dpop_jkt`, A11), hands it to `onPending` (P1), then to `present`.
    /// - It waits `interval` seconds (5 when the provider names none) on the injected clock
    ///   before every poll. `authorization_pending` polls again; `slow_down` adds 5 seconds
    ///   to the interval for good (RFC 8628 §3.5; the new interval goes to `onPending` too).
    /// - Each poll is one token request with its own retry budget and the retry rules of a
    ///   refresh (R6, R8: a 503 with `Retry-After` is waited out, or fails the login as a
    ///   `server` error when the wait does not fit the budget); with DPoP every poll carries a
    ///   proof by the same key, nonce demands answered as at the token endpoint (D3, R3).
    /// - The ID token is validated as after a code exchange (A7), except for `nonce`: the
    ///   device flow sends none, so none is checked.
    ///
    /// ```swift
    /// let grant = try await client.loginWithDevice(present: { prompt in
    ///     print("Open \(prompt.verificationURI) and enter \(prompt.userCode)")
    /// })
    /// print("signed in as", grant.claims?.subject ?? "(no ID token)")
    /// ```
    /// - Parameters:
    ///   - parameters: `scopes` is used (the default scopes adapted as for a browser login,
    ///     A12); the device endpoint takes no other parameter.
    ///   - dpopKey: the key to bind when the caller made (and persisted) it itself; a fresh one
    ///     is made when DPoP applies and none is given. When resuming, the key the request was
    ///     made with.
    ///   - resuming: a device authorization made earlier (restored from storage, P2): polling
    ///     goes on with it instead of asking for a new code.
    ///   - onPending: called with the pending authorization before it is shown (P1), and again
    ///     whenever its interval grows; when the first call throws, the login ends with that
    ///     error and nothing is shown.
    ///   - present: called once with what the person must see: the user code and where to
    ///     enter it.
    /// - Returns: the grant.
    /// - Throws: `.reauthenticate(.authorizationDenied)` when the person refused
    ///   (`access_denied`); `.recoverable(.pendingRequestExpired)` for `expired_token` or once
    ///   `expires_in` passed locally; `.recoverable(.userCancelled)` after ``cancelLogin()``;
    ///   `.recoverable(.systemCancelled)` when the calling task is cancelled;
    ///   `.configuration(.providerUnsupported)` when the provider advertises no
    ///   `device_authorization_endpoint`; `.reauthenticate(.credentialsInvalidated)` when a
    ///   resumed request was bound to a DPoP key that is not supplied; the token endpoint's
    ///   other errors, as a refresh maps them.
    public func loginWithDevice(
        _ parameters: AuthorizationParameters = AuthorizationParameters(),
        dpopKey: DPoPKey? = nil,
        resuming: PendingDeviceAuthorization? = nil,
        onPending: (@Sendable (PendingDeviceAuthorization) async throws(VersolaError) -> Void)? = nil,
        present: (@Sendable (DeviceAuthorizationPrompt) async -> Void)? = nil
    ) async throws(VersolaError) -> Grant {
        loginsInProgress += 1
        defer {
            loginsInProgress -= 1
            if loginsInProgress == 0 { cancelRequested = false }
        }
        // The whole flow runs as a task of its own so that a cancel interrupts a poll's wait.
        let work = Task { () async throws -> Grant in
            try await self.runDeviceLogin(
                parameters, dpopKey: dpopKey, resuming: resuming, onPending: onPending, present: present)
        }
        activeDevicePoll = work
        defer { if activeDevicePoll == work { activeDevicePoll = nil } }
        if cancelRequested { work.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await work.value
            } onCancel: {
                work.cancel()
            }
        } catch {
            // E7: the person's cancel wins over whatever the interrupted step reported.
            if cancelRequested { throw .recoverable(.userCancelled) }
            throw (error as? VersolaError) ?? .recoverable(.systemCancelled)
        }
    }

    private func runDeviceLogin(
        _ parameters: AuthorizationParameters, dpopKey: DPoPKey?, resuming: PendingDeviceAuthorization?,
        onPending: (@Sendable (PendingDeviceAuthorization) async throws(VersolaError) -> Void)?,
        present: (@Sendable (DeviceAuthorizationPrompt) async -> Void)?
    ) async throws(VersolaError) -> Grant {
        let budget = try newBudget()
        let metadata = try await discovery.metadata(budget: budget)
        try metadata.checkSupportsDeviceAuthorization(configuration)
        try await checkCooldown(metadata)
        let pending: PendingDeviceAuthorization
        let key: DPoPKey?
        if let resuming {
            if let bound = resuming.dpopThumbprint, dpopKey?.thumbprint != bound {
                environment.log.record(VersolaLogEvent(.error, "the DPoP key the device request was bound to is missing"))
                throw .reauthenticate(.credentialsInvalidated)
            }
            key = resuming.dpopThumbprint == nil ? nil : dpopKey
            pending = resuming
        } else {
            if metadata.bindsDPoP(for: configuration) { key = if let dpopKey { dpopKey } else { try DPoPKey.generate() } }
            else { key = nil }
            let scope = metadata.authorizationParameters(parameters, for: configuration).scopes?
                .joined(separator: " ") ?? configuration.requestedScope
            guard let url = metadata.deviceAuthorizationEndpoint else {
                throw .configuration(.providerUnsupported("the provider advertises no device_authorization_endpoint"))
            }
            pending = try await DeviceAuthorizationEndpoint(
                url: url, client: ClientAuthentication(configuration: configuration, metadata: metadata), sender: sender)
                .request(scope: scope, issuer: configuration.issuer, budget: budget, dpopKey: key)
            try await onPending?(pending)
        }
        if Task.isCancelled { throw .recoverable(.systemCancelled) }
        await present?(pending.prompt(resumed: resuming != nil))
        return try await poll(pending, metadata: metadata, dpopKey: key, onPending: onPending)
    }

    /// Polls until the person answers or the code expires (RFC 8628 §3.4, §3.5).
    private func poll(
        _ start: PendingDeviceAuthorization, metadata: ProviderMetadata, dpopKey: DPoPKey?,
        onPending: (@Sendable (PendingDeviceAuthorization) async throws(VersolaError) -> Void)?
    ) async throws(VersolaError) -> Grant {
        var pending = start
        let clock = environment.clock
        let endpoint = TokenEndpoint(metadata: metadata, configuration: configuration, sender: sender)
        while true {
            if pending.isExpired(at: clock.wallClockNow) {
                environment.log.record(VersolaLogEvent(.info, "the device code expired before it was approved"))
                throw .recoverable(.pendingRequestExpired)
            }
            do {
                try await clock.sleep(for: .seconds(pending.interval))
            } catch {
                throw .recoverable(.systemCancelled)
            }
            if pending.isExpired(at: clock.wallClockNow) { continue }
            let budget = try newBudget()
            switch try await endpoint.pollDeviceCode(deviceCode: pending.deviceCode, budget: budget, dpopKey: dpopKey) {
            case .pending:
                continue
            case .slowDown:
                pending.interval += PendingDeviceAuthorization.slowDownStep
                environment.log.record(
                    VersolaLogEvent(.info, "the provider asked to poll more slowly; polling every \(pending.interval) s"))
                // Stored so that a restarted process polls as slowly; a failed write only costs that.
                try? await onPending?(pending)
            case .tokens(let tokens):
                return try await newGrant(
                    tokens, metadata: metadata, nonce: nil, scope: pending.scope, budget: budget, dpopKey: dpopKey)
            }
        }
    }
}
