import Foundation
import Synchronization

/// The DPoP nonces servers handed out (RFC 9449 §8, §9; D3), one per origin: learned from the
/// `DPoP-Nonce` header of every response, success or error, and sent only back to the origin
/// that issued it.
///
/// Shared by every request of one client; thread-safe. The session layer persists
/// ``snapshot()`` with the grant and calls ``restore(_:)`` at startup, so the first request
/// after a restart already carries a nonce.
///
/// ```swift
/// let nonces = DPoPNonceCache()
/// nonces.learn(from: response)
/// nonces.nonce(for: Origin(url: tokenURL)!)   // the token endpoint's latest nonce
/// ```
public final class DPoPNonceCache: Sendable {
    private let nonces = Mutex<[Origin: String]>([:])

    /// Creates an empty cache.
    public init() {}

    /// The latest nonce of `origin`, or nil when it never sent one.
    public func nonce(for origin: Origin) -> String? {
        nonces.withLock { $0[origin] }
    }

    /// Records `nonce` as the latest of `origin`. A value that is not `1*NQCHAR` (RFC 9449
    /// §8.1: visible ASCII without `"` and `\`) or is over 1 KB is ignored.
    public func learn(_ nonce: String, from origin: Origin) {
        guard Self.isUsable(nonce) else { return }
        nonces.withLock { $0[origin] = nonce }
    }

    /// Records the `DPoP-Nonce` of a response, when it has one, under the origin that answered.
    public func learn(from response: HTTPResponse) {
        guard let nonce = response.headers["DPoP-Nonce"] else { return }
        learn(nonce, from: response.origin)
    }

    /// Every nonce, keyed by its origin's text (`https://host[:port]`), for storage.
    public func snapshot() -> [String: String] {
        nonces.withLock { current in
            Dictionary(uniqueKeysWithValues: current.map { ($0.key.description, $0.value) })
        }
    }

    /// Adds the nonces of a ``snapshot()``; entries whose key is not an origin are skipped.
    public func restore(_ snapshot: [String: String]) {
        for (key, nonce) in snapshot {
            guard let url = URL(string: key), let origin = Origin(url: url) else { continue }
            learn(nonce, from: origin)
        }
    }

    /// Forgets every nonce (after a logout or a wipe).
    public func removeAll() {
        nonces.withLock { $0.removeAll() }
    }

    private static func isUsable(_ nonce: String) -> Bool {
        !nonce.isEmpty && nonce.utf8.count <= 1024 && nonce.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E && $0 != 0x22 && $0 != 0x5C }
    }
}
