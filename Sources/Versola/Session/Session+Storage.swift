import VersolaHTTP
import Foundation

extension Session {
    // MARK: Following other processes (S11)

    /// Called for every generation the store reports: a change by another process is read and
    /// handed to the machine; this process's own writes are recognised and skipped.
    /// `generation` is what the notice carried; nil asks the store.
    func storeMayHaveChanged(_ generation: UInt64?) async {
        if ownSections > 0 {
            changeDeferred = true
            return
        }
        let current: UInt64
        if let generation { current = generation } else { current = await store.generation() }
        guard current != knownGeneration else { return }
        await resync()
    }

    /// Reads the store now instead of waiting for the change notice (which arrives within
    /// milliseconds, or within a second where inotify is unavailable).
    public func reloadFromStore() async {
        guard started else { return }
        await resync()
    }

    /// Reads the store and applies what it holds as a change made elsewhere.
    func resync() async {
        knownGeneration = await store.generation()
        let (stored, record) = await readStore()
        switch stored {
        case .locked:
            await perform(apply(.storageLocked))
        case .grant:
            if let record, !machine.heldBackOutranks(stored) { client.dpopNonces.restore(record.dpopNonces) }
            await perform(apply(.storeChanged(stored)))
        case .empty, .pendingRequest, .expiredPendingRequest, .unreadable:
            await perform(apply(.storeChanged(stored)))
        }
    }

    // MARK: Writes that must not lose a token (P10)

    /// Saves `record` (the caller holds the profile lock); when the store refuses, the record
    /// is held in memory and written again later, and the store keeps it where it can (a spill
    /// to another file system) for the processes that outlive this one (P10).
    func saveOrHold(_ record: SessionRecord, replacing: String?) async {
        do throws(VersolaError) {
            try await store.saveRenewal(record)
            knownGeneration = await store.generation()
            await perform(apply(.heldBackWritten))
        } catch {
            client.environment.log.record(
                VersolaLogEvent(.error, "the renewed session could not be stored (\(error)); it is kept in memory"))
            // The store may have spilled it (P10): that change is this session's own.
            knownGeneration = await store.generation()
            await perform(apply(.renewalRefused(record, replacing: replacing)))
        }
    }

    /// Writes the held record if the store now accepts it. When another process changed the
    /// session meanwhile (the record no longer holds the token it replaces), it is dropped and
    /// its refresh token revoked, so nothing outlives a sign-out.
    func flushUnsaved() async {
        guard let pending = machine.heldBack else { return }
        var fate = HeldBackFate.none
        var written = false
        try? await exclusively { () throws(VersolaError) in
            fate = machine.heldBackFate(stored: try await store.load()?.refreshToken)
            guard case .write(let record) = fate else { return }
            try await store.saveRenewal(record)
            knownGeneration = await store.generation()
            written = true
        }
        // The machine decided; a record held anew meanwhile waits for the next try.
        guard machine.heldBack == pending else { return }
        switch fate {
        case .write where written: await perform(apply(.heldBackWritten))
        case .superseded: await perform(apply(.heldBackSuperseded))
        case .none, .write: break
        }
    }

    /// Tries the held record again, after 2 s, then twice as long each time, at most a minute
    /// apart, until it is written or dropped.
    func scheduleUnsavedRetry() {
        guard unsavedRetry == nil else { return }
        let clock = client.environment.clock
        unsavedRetry = Task { [weak self] in
            var pause = Duration.seconds(2)
            while !Task.isCancelled {
                do { try await clock.sleep(for: pause) } catch { return }
                pause = min(pause * 2, .seconds(60))
                guard let self else { return }
                await self.flushUnsaved()
                if await self.machine.heldBack == nil { return }
            }
        }
    }

    // MARK: A record handed over by a process that ends (P10)

    /// The renewed record this session could not store yet (P10), for the process that
    /// outlives this one; nil when every record is stored.
    package var unsavedRecord: SessionRecord? { machine.heldBack?.record }

    /// What this session holds before another process (the agent's refresh process) renews
    /// its grant: what a record that process hands back replaces on disk.
    package func handOverPoint() -> RenewalHandOver {
        RenewalHandOver(replacing: machine.heldGrant?.grant.refreshToken)
    }

    /// Takes up `record`, renewed by another process that could not store it and handed over
    /// (P10): held, served from, and written to the store now or, while the store refuses it,
    /// again later; never over a session another process wrote meanwhile (then it is dropped
    /// and its refresh token revoked).
    package func holdHandedOver(_ record: SessionRecord, since point: RenewalHandOver) async {
        guard machine.heldBack == nil || machine.heldBack?.record.refreshToken == point.replacing,
            let grant = record.grant
        else { return }
        await perform(apply(.renewalRefused(record, replacing: point.replacing)))
        await flushUnsaved()
        let held = machine.heldBack?.record == record
        let stored = held ? nil : try? await store.load()
        // Dropped as superseded: the session follows the store, which moved on.
        guard held || stored?.refreshToken == record.refreshToken else { return }
        await perform(apply(.refreshSucceeded(self.held(grant))))
    }

    // MARK: Logout

    /// Signs out (S9, S12): takes the profile lock, reads the newest record, wipes it and
    /// everything local (the DPoP key too, P6), publishes `unauthenticated`, then revokes the
    /// newest refresh token (A9): the one on disk, and the one in memory when it differs.
    /// With `endSession`, opens the provider's end-session page afterwards (A15), through a
    /// ``OneTimeRedirect`` (waiting up to its minute for the browser to ask for it). Works
    /// offline and while locked; never fails.
    /// - Returns: what happened to the end-session page, nil when it was not asked for.
    @discardableResult
    public func logout(endSession: Bool = false) async -> EndSessionOutcome? {
        await perform(apply(.logoutStarted(endSession: endSession))).endSession
    }

    /// The wipe of a logout (S12): under the profile lock, reads the newest record and wipes it;
    /// drops a record held for a later write. Returns the grant the record held for this client.
    func wipeForLogout() async -> Grant? {
        var newest: SessionRecord?
        do throws(VersolaError) {
            try await exclusively { () throws(VersolaError) in
                newest = try? await store.load()
                try await store.wipe()
                knownGeneration = await store.generation()
            }
        } catch {
            client.environment.log.record(VersolaLogEvent(.error, "the stored session could not be removed (\(error))"))
        }
        guard let newest, newest.issuer == configuration.client.issuer, newest.clientID == configuration.client.clientID
        else { return nil }
        return newest.grant
    }

    /// Opens the provider's end-session page (RP-Initiated Logout) with the ID token as hint,
    /// by the browser rules of the login (L1), through a one-time loopback page so that no
    /// command line carries the token; the local sign-out has already happened (S9).
    func openEndSession(idTokenHint: String?) async -> EndSessionOutcome {
        let request: EndSessionRequest
        do throws(VersolaError) {
            request = try EndSessionRequest(metadata: try await client.metadata(), idToken: idTokenHint, configuration: configuration.client)
        } catch {
            return .unavailable(error)
        }
        let environment = client.environment
        let opened = await OneTimeRedirect.open(request.url, in: browser, random: environment.random, clock: environment.clock)
        return opened ? .opened(url: request.shareableURL) : .notOpened(request)
    }
}
