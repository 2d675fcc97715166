import VersolaHTTP
import Foundation
import Synchronization

/// The DPoP nonces servers handed out (RFC 9449 §8, §9; D3), one per origin: learned from the
/// `DPoP-Nonce` header of every response, success or error, and sent only back to the origin
/// that issued it.
///
/// Bounded: at most ``capacity`` origins (64 by default), the least recently used forgotten
/// first, so neither memory nor the stored record grows with the origins a session meets.
/// Shared by every request of one client; thread-safe. The session layer persists
/// ``snapshot()`` with the grant and calls ``restore(_:)`` at startup, so the first request
/// after a restart already carries a nonce.
///
/// ```swift
/// let nonces = DPoPNonceCache()
/// nonces.learn(from: response)                // the response's `DPoP-Nonce`, if it has one
/// record.dpopNonces = nonces.snapshot()       // kept with the grant; `restore(_:)` at startup
/// ```
public final class DPoPNonceCache: Sendable {
    /// How many origins are remembered unless another number is given: 64.
    public static let defaultCapacity = 64

    /// The most origins remembered; learning one more forgets the least recently used.
    public let capacity: Int

    private struct Entry {
        var nonce: String
        var lastUsed: UInt64
    }

    private struct State {
        var entries: [Origin: Entry] = [:]
        var clock: UInt64 = 0

        mutating func tick() -> UInt64 {
            clock += 1
            return clock
        }
    }

    private let state = Mutex(State())

    /// Creates an empty cache that remembers at most `capacity` origins (at least one).
    public init(capacity: Int = DPoPNonceCache.defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    /// The latest nonce of `origin`, or nil when it never sent one (or was forgotten). A hit
    /// counts as a use for the least-recently-used order.
    public func nonce(for origin: Origin) -> String? {
        state.withLock { state in
            guard var entry = state.entries[origin] else { return nil }
            entry.lastUsed = state.tick()
            state.entries[origin] = entry
            return entry.nonce
        }
    }

    /// Records `nonce` as the latest of `origin`. A value that is not `1*NQCHAR` (RFC 9449
    /// §8.1: visible ASCII without `"` and `\`) or is over 1 KB is ignored. When the cache
    /// already holds ``capacity`` other origins, the least recently used one is forgotten: a
    /// forgotten nonce costs at most one `use_dpop_nonce` retry, an unbounded cache costs the
    /// memory and the size of the stored record.
    public func learn(_ nonce: String, from origin: Origin) {
        guard Self.isUsable(nonce) else { return }
        state.withLock { state in
            state.entries[origin] = Entry(nonce: nonce, lastUsed: state.tick())
            while state.entries.count > capacity {
                guard let oldest = state.entries.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key else { break }
                state.entries[oldest] = nil
            }
        }
    }

    /// Records the `DPoP-Nonce` of a response, when it has one, under the origin that answered.
    public func learn(from response: HTTPResponse) {
        guard let nonce = response.headers["DPoP-Nonce"] else { return }
        learn(nonce, from: response.origin)
    }

    /// Every nonce, keyed by its origin's text (`https://host[:port]`), for storage: at most
    /// ``capacity`` entries.
    public func snapshot() -> [String: String] {
        state.withLock { state in
            Dictionary(uniqueKeysWithValues: state.entries.map { ($0.key.description, $0.value.nonce) })
        }
    }

    /// Adds the nonces of a ``snapshot()``; entries whose key is not an origin are skipped.
    /// A snapshot larger than ``capacity`` (written by an older version) keeps ``capacity``
    /// of its entries.
    public func restore(_ snapshot: [String: String]) {
        for (key, nonce) in snapshot.sorted(by: { $0.key < $1.key }) {
            guard let url = URL(string: key), let origin = Origin(url: url) else { continue }
            learn(nonce, from: origin)
        }
    }

    /// How many origins have a nonce.
    public var count: Int {
        state.withLock { $0.entries.count }
    }

    /// Forgets every nonce (after a logout or a wipe).
    public func removeAll() {
        state.withLock { $0.entries.removeAll() }
    }

    private static func isUsable(_ nonce: String) -> Bool {
        !nonce.isEmpty && nonce.utf8.count <= 1024
            && nonce.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E && $0 != 0x22 && $0 != 0x5C }
    }
}
