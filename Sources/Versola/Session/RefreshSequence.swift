import VersolaHTTP
import Foundation
import VersolaCrypto

/// One refresh, spent under the profile lock, as a pure value (T2, P7, P10, R6).
///
/// The order of its store writes is decided here: the in-flight note before the refresh token
/// is sent; the rotated token as soon as the answer arrives, before the answer is checked; the
/// whole renewed record last; and the note taken away again only when the request provably
/// never reached the provider (R6, from ``RetryTable``). Each event has one method with an
/// exhaustive switch over the steps; it returns the actions the session actor carries out, in
/// order. An action that answers (a read, the request, the check) or fails ends its list: the
/// actor hands back what came of it as the next event. Once ``result`` is set, nothing more
/// happens.
struct RefreshSequence: Sendable, Hashable {
    /// Where the refresh is, with the data that step needs.
    enum Step: Sendable, Hashable {
        /// Waiting for the newest record; `current` is the grant the caller wants renewed.
        case reading(current: Grant)
        /// The in-flight note is written and `spending` is being sent; `record` is the record
        /// without the note.
        case sending(record: SessionRecord, spending: String)
        /// The answer arrived and its rotated token (`kept`) is stored; the answer is being checked.
        case checking(record: SessionRecord, spending: String, kept: String?)
        /// Over: the renewed grant or the failure, and a rotated token that arrived before a
        /// failure (P10).
        case finished(Result<Grant, VersolaError>, kept: String?)
    }

    /// The step the refresh is at.
    private(set) var step: Step
    private let issuer: String
    private let clientID: String

    /// A refresh of `current` for the client `clientID` at `issuer`.
    init(current: Grant, issuer: String, clientID: String) {
        step = .reading(current: current)
        self.issuer = issuer
        self.clientID = clientID
    }

    /// How the refresh ended, once it has.
    var result: (Result<Grant, VersolaError>, kept: String?)? {
        if case .finished(let result, let kept) = step { (result, kept) } else { nil }
    }

    /// Applies `event` and returns what to do, in order.
    @discardableResult
    mutating func handle(_ event: RefreshEvent) -> [RefreshAction] {
        switch event {
        case .started: started()
        case .recordRead(let stored, let unsaved, let now): recordRead(unsaved ?? stored, now: now)
        case .answered(let rotated, let nonces): answered(rotated: rotated, nonces: nonces)
        case .requestFailed(let error): requestFailed(error)
        case .checked(let renewed): checked(renewed)
        case .failed(let error): failed(error)
        }
    }

    private func started() -> [RefreshAction] {
        switch step {
        case .reading: [.readRecord]
        case .sending, .checking, .finished: []
        }
    }

    /// T2: the newest record decides which refresh token is spent; P7: the note goes first.
    private mutating func recordRead(_ newest: SessionRecord?, now: Date) -> [RefreshAction] {
        guard case .reading(let current) = step else { return [] }
        guard var record = newest, record.issuer == issuer, record.clientID == clientID else {
            // Signed out (or signed in elsewhere) by another process: nothing to spend.
            return finish(.failure(.reauthenticate(.sessionExpired)), kept: nil)
        }
        var base = current
        if let newest = record.refreshToken, newest != current.refreshToken {
            // Another process rotated the token while this one waited: use theirs, never replay ours.
            base.refreshToken = newest
            if let raw = record.dpopPrivateKey { base.dpopKey = try? DPoPKey(rawRepresentation: raw) }
        }
        guard let spending = base.refreshToken else { return finish(.failure(.reauthenticate(.sessionExpired)), kept: nil) }
        let unfinished = record.refreshInFlight?.concerns(refreshToken: spending) == true
        record.refreshInFlight = nil
        step = .sending(record: record, spending: spending)
        var noted = record
        noted.refreshInFlight = RefreshInFlight(refreshToken: spending, startedAt: now)
        return (unfinished ? [.warnUnfinishedRefresh] : []) + [.writeNote(noted), .send(base)]
    }

    /// P7, P10: the answer arrived, so the old token is spent: the new one is stored first.
    private mutating func answered(rotated: String?, nonces: [String: String]) -> [RefreshAction] {
        guard case .sending(var record, let spending) = step else { return [] }
        if let rotated { record.refreshToken = rotated }
        record.dpopNonces = nonces
        step = .checking(record: record, spending: spending, kept: rotated)
        return [.save(record, replacing: spending), .check]
    }

    /// R6: a request that provably never reached the provider leaves the token unspent, and
    /// so does one the provider refused; only then does the note go.
    private mutating func requestFailed(_ error: VersolaError) -> [RefreshAction] {
        guard case .sending(let record, let spending) = step else { return [] }
        let unspent: Bool
        switch error {
        case .recoverable(.network(let failure)): unspent = RetryTable.provablyUnprocessed(.network(failure))
        case .recoverable(.server(let failure)): unspent = RetryTable.provablyUnprocessed(.server(failure))
        case .reauthenticate: unspent = true
        case .recoverable, .configuration, .stepUp: unspent = false
        }
        return (unspent ? [.save(record, replacing: spending)] : []) + finish(.failure(error), kept: nil)
    }

    /// The checked answer completes the record, written last.
    private mutating func checked(_ renewed: Grant) -> [RefreshAction] {
        guard case .checking(var record, let spending, let kept) = step else { return [] }
        record.refreshToken = renewed.refreshToken
        record.idToken = renewed.idToken
        record.subject = renewed.claims?.subject ?? record.subject
        record.dpopPrivateKey = renewed.dpopKey?.rawRepresentation
        return [.save(record, replacing: spending)] + finish(.success(renewed), kept: kept)
    }

    /// A read, the note's write or the check failed (or the lock could not be taken).
    private mutating func failed(_ error: VersolaError) -> [RefreshAction] {
        switch step {
        case .reading, .sending: finish(.failure(error), kept: nil)
        case .checking(_, _, let kept): finish(.failure(error), kept: kept)
        case .finished: []
        }
    }

    private mutating func finish(_ result: Result<Grant, VersolaError>, kept: String?) -> [RefreshAction] {
        step = .finished(result, kept: kept)
        return []
    }
}

/// What happened during a refresh, as ``RefreshSequence`` sees it.
enum RefreshEvent: Sendable, Hashable {
    /// The refresh began (the profile lock is held).
    case started
    /// The store's record was read; `unsaved` is one this session could not write yet (P10),
    /// newer than the stored one: ``SessionMachine``, which holds it back, fills it in, so the
    /// session reports only what it read. `now` dates the in-flight note.
    case recordRead(stored: SessionRecord?, unsaved: SessionRecord? = nil, now: Date)
    /// The token endpoint answered; `rotatedRefreshToken` is the new refresh token when it
    /// changed; `dpopNonces` the nonces learned so far (D3).
    case answered(rotatedRefreshToken: String?, dpopNonces: [String: String])
    /// The request to the token endpoint failed.
    case requestFailed(VersolaError)
    /// The answer passed its checks (A7, T3): the renewed grant.
    case checked(Grant)
    /// The record could not be read, the in-flight note not written, the answer not accepted,
    /// or the lock not taken.
    case failed(VersolaError)
}

/// What the session actor does for a refresh, in the order returned.
enum RefreshAction: Sendable, Hashable {
    /// Read the stored record; answered by ``RefreshEvent/recordRead(stored:unsaved:now:)``.
    case readRecord
    /// Log that an earlier refresh of this token did not finish (it is tried once more).
    case warnUnfinishedRefresh
    /// Write the record with its in-flight note (P7); a failure ends the refresh.
    case writeNote(SessionRecord)
    /// Send the refresh; answered by `answered` or `requestFailed`.
    case send(Grant)
    /// Write the record, or hold it in memory and write it later when the store refuses (P10);
    /// it is written only over the refresh token `replacing`.
    case save(SessionRecord, replacing: String)
    /// Check the answer received (A7, T3); answered by `checked` or `failed`.
    case check
}
