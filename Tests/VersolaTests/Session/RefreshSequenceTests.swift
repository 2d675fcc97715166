import Foundation
import Testing
@testable import Versola
import VersolaHTTP

/// The refresh's store writes as the pure sequence returns them (T2, P7, P10, R6), every
/// (step, event) pair included.
@Suite struct RefreshSequenceTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let current = SessionMachineTests.grant(refreshToken: "refresh-1")
    static let record = SessionRecord(
        issuer: "https://id.example", clientID: "cli", subject: "alice", refreshToken: "refresh-1",
        idToken: SessionMachineTests.idToken)
    static let nonces = ["https://id.example:443": "nonce-1"]
    static let renewed: Grant = {
        var grant = SessionMachineTests.grant(refreshToken: "refresh-2")
        grant.accessToken = "access-2"
        return grant
    }()

    static func noted(_ record: SessionRecord, spending: String) -> SessionRecord {
        var noted = record
        noted.refreshInFlight = RefreshInFlight(refreshToken: spending, startedAt: now)
        return noted
    }

    static func network(written: Bool) -> VersolaError {
        .recoverable(.network(NetworkFailure(kind: written ? .timedOut : .couldNotConnect, requestBytesWritten: written, origin: "x")))
    }

    static func server(_ status: Int) -> VersolaError {
        .recoverable(.server(ServerFailure(status: status, failedRequests: 1, elapsed: .zero)))
    }

    /// A sequence standing at `step`, reached through real events.
    static func sequence(at step: String) -> RefreshSequence {
        var sequence = RefreshSequence(current: current, issuer: "https://id.example", clientID: "cli")
        if step == "reading" { return sequence }
        sequence.handle(.recordRead(stored: record, unsaved: nil, now: now))
        if step == "sending" { return sequence }
        sequence.handle(.answered(rotatedRefreshToken: "refresh-2", dpopNonces: nonces))
        if step == "checking" { return sequence }
        sequence.handle(.checked(renewed))
        return sequence
    }

    static let events: [(String, RefreshEvent)] = [
        ("started", .started),
        ("read", .recordRead(stored: record, unsaved: nil, now: now)),
        ("read.none", .recordRead(stored: nil, unsaved: nil, now: now)),
        ("answered", .answered(rotatedRefreshToken: "refresh-2", dpopNonces: nonces)),
        ("requestFailed.unsent", .requestFailed(network(written: false))),
        ("requestFailed.maybeProcessed", .requestFailed(network(written: true))),
        ("checked", .checked(renewed)),
        ("failed", .failed(.recoverable(.nonceLoop))),
    ]

    /// Written from the SPEC: the actions of each pair that does something, and whether it ends
    /// the refresh. Pairs not listed do nothing.
    static func expected(_ step: String, _ event: String) -> ([RefreshAction], ends: Bool)? {
        var unmarked = record
        unmarked.refreshInFlight = nil
        var stored = record
        stored.refreshToken = "refresh-2"
        stored.dpopNonces = nonces
        switch (step, event) {
        case ("reading", "started"): return ([.readRecord], false)
        case ("reading", "read"): return ([.writeNote(noted(record, spending: "refresh-1")), .send(current)], false)  // P7
        case ("reading", "read.none"), ("reading", "failed"), ("sending", "failed"), ("checking", "failed"): return ([], true)
        case ("sending", "answered"): return ([.save(stored, replacing: "refresh-1"), .check], false)  // P10
        case ("sending", "requestFailed.unsent"): return ([.save(unmarked, replacing: "refresh-1")], true)  // R6
        case ("sending", "requestFailed.maybeProcessed"): return ([], true)  // R6: the note stays
        case ("checking", "checked"): return ([.save(stored, replacing: "refresh-1")], true)
        default: return nil
        }
    }

    @Test("T2 P7 P10 R6: every (step, event) pair of the refresh does what the SPEC says", arguments: ["reading", "sending", "checking", "finished"])
    func everyPair(step: String) {
        for (name, event) in Self.events {
            var sequence = Self.sequence(at: step)
            let before = sequence
            let actions = sequence.handle(event)
            if let (expected, ends) = Self.expected(step, name) {
                #expect(actions == expected, "\(step) + \(name)")
                #expect((sequence.result != nil) == ends, "\(step) + \(name)")
            } else {
                #expect(actions.isEmpty, "\(step) + \(name) should do nothing")
                #expect(sequence == before, "\(step) + \(name) should change nothing")
            }
        }
    }

    @Test("P7 P10: the note is written before the token is sent, the rotated token before the answer is checked, the whole record last")
    func writeOrder() {
        var sequence = Self.sequence(at: "reading")
        #expect(sequence.handle(.started) == [.readRecord])
        let sending = sequence.handle(.recordRead(stored: Self.record, unsaved: nil, now: Self.now))
        #expect(sending == [.writeNote(Self.noted(Self.record, spending: "refresh-1")), .send(Self.current)])
        let answered = sequence.handle(.answered(rotatedRefreshToken: "refresh-2", dpopNonces: Self.nonces))
        guard case .save(let first, "refresh-1") = answered.first, answered.last == .check, answered.count == 2 else {
            Issue.record("the rotated token is not stored before the check: \(answered)")
            return
        }
        #expect(first.refreshToken == "refresh-2" && first.refreshInFlight == nil && first.dpopNonces == Self.nonces)
        let done = sequence.handle(.checked(Self.renewed))
        guard case .save(let last, "refresh-1")? = done.first, done.count == 1 else {
            Issue.record("the renewed record is not written last: \(done)")
            return
        }
        #expect(last.refreshToken == "refresh-2" && last.idToken == Self.renewed.idToken && last.subject == "alice")
        #expect(sequence.result?.0 == .success(Self.renewed) && sequence.result?.kept == "refresh-2")
    }

    @Test("T2: a token rotated by another process, or held unsaved (P10), is the one spent; a marked one is warned about")
    func newestTokenSpent() {
        var elsewhere = Self.record
        elsewhere.refreshToken = "refresh-elsewhere"
        elsewhere.refreshInFlight = RefreshInFlight(refreshToken: "refresh-elsewhere", startedAt: Self.now)
        var sequence = Self.sequence(at: "reading")
        let actions = sequence.handle(.recordRead(stored: Self.record, unsaved: elsewhere, now: Self.now))
        var base = Self.current
        base.refreshToken = "refresh-elsewhere"
        var unmarked = elsewhere
        unmarked.refreshInFlight = nil
        #expect(actions == [.warnUnfinishedRefresh, .writeNote(Self.noted(unmarked, spending: "refresh-elsewhere")), .send(base)])
        var other = Self.sequence(at: "reading")
        var foreign = Self.record
        foreign.clientID = "another"
        #expect(other.handle(.recordRead(stored: foreign, unsaved: nil, now: Self.now)).isEmpty)
        #expect(other.result?.0 == .failure(.reauthenticate(.sessionExpired)))
    }

    @Test("R6: the note goes only when the request provably never reached the provider, or the provider refused the grant")
    func noteAfterFailure() {
        let unspent = [Self.network(written: false), Self.server(408), Self.server(429), Self.server(503), .reauthenticate(.grantRejected)]
        let maybeSpent = [Self.network(written: true), Self.server(500), Self.server(502), Self.server(504), .recoverable(.nonceLoop)]
        for error in unspent + maybeSpent {
            var sequence = Self.sequence(at: "sending")
            let actions = sequence.handle(.requestFailed(error))
            #expect(actions.count == (unspent.contains(error) ? 1 : 0), "\(error)")
            #expect(sequence.result?.0 == .failure(error) && sequence.result?.kept == nil)
        }
    }

    @Test("P10: a rotated token that arrived before a failed check is kept")
    func rotatedKeptOnFailure() {
        var sequence = Self.sequence(at: "checking")
        sequence.handle(.failed(.configuration(.idTokenRejected(IDTokenRejection(.expired, "expired")))))
        #expect(sequence.result?.kept == "refresh-2")
    }
}
