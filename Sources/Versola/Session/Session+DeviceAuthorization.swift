import VersolaHTTP
import Foundation

extension Session {
    /// Signs in on another device (RFC 8628, A14): for a machine where no browser can be
    /// opened (over SSH, a console). `present` is handed the user code and the verification
    /// page; the person opens that page on any device, enters the code and approves, while
    /// the session polls the provider. The device request is on disk before `present` is
    /// called (P1), so a process that is killed meanwhile can be restarted and goes on
    /// polling for the same code (P2): when the session restored such a request, this call
    /// resumes it (``DeviceAuthorizationPrompt/resumed`` is then true) instead of asking
    /// for a new code.
    ///
    /// Over a live session, a failure keeps that session (S4, P9). ``cancelLogin()`` ends it
    /// `userCancelled` and drops the device request (E7); a cancelled task ends it
    /// `systemCancelled` and keeps the request for a later resume.
    ///
    /// ```swift
    /// try await session.loginWithDevice { prompt in
    ///     print("Open \(prompt.verificationURIComplete ?? prompt.verificationURI)")
    ///     print("and enter the code \(prompt.userCode)")
    /// }
    /// ```
    /// - Parameters:
    ///   - parameters: `scopes` replaces the configuration's scopes for a new request; the
    ///     device flow sends no other authorization parameter.
    ///   - present: called once, with what the person must see.
    /// - Throws: any `VersolaError`; `.reauthenticate(.authorizationDenied)` when the person
    ///   refused; `.recoverable(.pendingRequestExpired)` when the code expired first;
    ///   `.configuration(.providerUnsupported)` when the provider offers no device flow;
    ///   `.recoverable(.unlockRequired)` while locked; a storage error, before anything is
    ///   shown, when the device request cannot be stored (P1).
    public func loginWithDevice(
        _ parameters: AuthorizationParameters = AuthorizationParameters(),
        present: (@Sendable (DeviceAuthorizationPrompt) async -> Void)? = nil
    ) async throws(VersolaError) {
        try await authorizeOnDevice(parameters, event: .deviceLoginStarted, present: present)
    }

    /// Goes on with a device login that an earlier process started and left on disk (P2,
    /// A14): polls for the same code, never asks for a new one.
    /// - Parameter present: called once, with the code shown before (``DeviceAuthorizationPrompt/resumed`` true).
    /// - Throws: `.recoverable(.pendingRequestExpired)` when no unexpired device request was
    ///   restored (one that expired was dropped at startup); otherwise as ``loginWithDevice(_:present:)``.
    public func resumeDeviceLogin(present: (@Sendable (DeviceAuthorizationPrompt) async -> Void)? = nil)
        async throws(VersolaError)
    {
        try await authorizeOnDevice(AuthorizationParameters(), event: .deviceLoginResumed, present: present)
    }

    /// The device login restored from disk and waiting to be resumed (P2), when there is one:
    /// what ``loginWithDevice(_:present:)`` or ``resumeDeviceLogin(present:)`` would show.
    public var pendingDeviceLogin: DeviceAuthorizationPrompt? {
        guard !machine.runsLiveLogin, case .device(let device)? = machine.pendingRequest else { return nil }
        return device.prompt(resumed: true)
    }

    private func authorizeOnDevice(
        _ parameters: AuthorizationParameters, event: SessionEvent,
        present: (@Sendable (DeviceAuthorizationPrompt) async -> Void)?
    ) async throws(VersolaError) {
        try checkUnlocked()
        let start = apply(event)
        if case .refused(let refusal) = start.result { throw refusal.loginError }
        let resumed = await perform(start).resumedDevice
        do {
            // A new key is made here (not inside the client) so that it is stored with the
            // device request; a resumed request uses the key stored with it (P1, P2, D1).
            let key: DPoPKey?
            if let resumed {
                key = resumed.dpopThumbprint == nil ? nil : try await storedDPoPKey()
            } else {
                key = try await client.resolvedDPoP() ? try DPoPKey.generate() : nil
            }
            let newGrant = try await client.loginWithDevice(
                parameters, dpopKey: key, resuming: resumed,
                onPending: { request throws(VersolaError) in try await self.storePending(.device(request), key: key) },
                present: present)
            try await adopt(newGrant)
        } catch {
            try await loginFailed(error)
        }
    }

    /// The DPoP key stored with the record, when any.
    private func storedDPoPKey() async throws(VersolaError) -> DPoPKey? {
        let raw = try await store.load()?.dpopPrivateKey
        return try raw.map { (bytes) throws(VersolaError) in try DPoPKey(rawRepresentation: bytes) }
    }
}
