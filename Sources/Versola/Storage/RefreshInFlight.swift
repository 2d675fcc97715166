import VersolaHTTP
import Foundation
import VersolaCrypto

/// The mark left in the store just before a rotating refresh token is spent.
///
/// If the process dies after the server rotated the token but before the answer was saved,
/// the next start finds this mark still naming the stored token and can report the lost
/// rotation instead of silently replaying a spent token. It keeps a SHA-256 digest of the
/// token, never the token itself.
public struct RefreshInFlight: Sendable, Hashable, CustomStringConvertible {
    /// When the refresh started.
    public var startedAt: Date
    /// SHA-256 of the refresh token being spent.
    public var tokenDigest: [UInt8]

    /// Marks `refreshToken` as about to be spent at `startedAt`.
    public init(refreshToken: String, startedAt: Date) {
        self.init(tokenDigest: SHA256.hash(Array(refreshToken.utf8)), startedAt: startedAt)
    }

    /// Restores a mark from its stored parts.
    public init(tokenDigest: [UInt8], startedAt: Date) {
        self.tokenDigest = tokenDigest
        self.startedAt = startedAt
    }

    /// Whether the mark was made for `refreshToken` (compared in constant time).
    public func concerns(refreshToken: String) -> Bool {
        constantTimeEqual(SHA256.hash(Array(refreshToken.utf8)), tokenDigest)
    }

    /// The start time only, never the digest.
    public var description: String { "RefreshInFlight(started \(startedAt))" }
}
