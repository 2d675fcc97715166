import VersolaHTTP

/// A renewed record the store refused (P10): held in the machine until it is written, served
/// from, and written only over the session it replaces.
struct HeldBackRecord: Sendable, Hashable {
    /// The record to write. Holds a refresh token the provider has already rotated.
    var record: SessionRecord
    /// The refresh token on disk that the record replaces (never written over another).
    var replacing: String?
}

/// What becomes of the held-back record once the store can be written again.
enum HeldBackFate: Sendable, Hashable {
    /// Nothing is held.
    case none
    /// Write it: the store still holds the session it replaces (or already this one).
    case write(SessionRecord)
    /// Another process changed the session meanwhile: drop it (and revoke its refresh token).
    case superseded
}

extension SessionMachine {
    /// P10: the store refused `record`: hold it (keeping what the first refused record
    /// replaces) and try again later.
    mutating func renewalRefused(_ record: SessionRecord, replacing: String?) -> SessionOutcome {
        let first = heldBack == nil
        heldBack = HeldBackRecord(record: record, replacing: heldBack?.replacing ?? replacing)
        return .accepted(first ? [.retryHeldBack] : [])
    }

    /// The held-back record was written (or a newer one was): nothing is held any more.
    mutating func heldBackWritten() -> SessionOutcome {
        guard heldBack != nil else { return ignored() }
        heldBack = nil
        return .accepted([.stopRetryingHeldBack])
    }

    /// Another process changed the session before the held-back record could be written: it
    /// is dropped, and its grant's refresh token revoked so that nothing outlives that change.
    mutating func heldBackSuperseded() -> SessionOutcome {
        guard let dropped = heldBack else { return ignored() }
        heldBack = nil
        return .accepted([.stopRetryingHeldBack] + (dropped.record.grant.map { [.revoke($0)] } ?? []))
    }

    /// What to do with the held-back record when the store holds `stored` (its refresh token).
    func heldBackFate(stored: String?) -> HeldBackFate {
        guard let heldBack else { return .none }
        return stored == heldBack.replacing || stored == heldBack.record.refreshToken ? .write(heldBack.record) : .superseded
    }

    /// Whether `stored`, read from the store, is the older session the held-back record
    /// replaces (or no session, the store being unwritable): the machine keeps serving the held one.
    func heldBackOutranks(_ stored: StoredSession) -> Bool {
        guard let heldBack else { return false }
        switch stored {
        case .empty: return true
        case .grant(let grant, _, _, _):
            return grant.refreshToken == heldBack.replacing && heldBack.record.refreshToken != heldBack.replacing
        case .pendingRequest, .expiredPendingRequest, .locked, .unreadable: return false
        }
    }
}
