import VersolaHTTP
import Foundation
import VersolaJOSE

/// An access token held in memory (P4) with its two deadlines (T3): the local one, on the
/// monotonic clock (minting time + `expires_in`, immune to the wall clock being changed),
/// and the token's own `exp` when it is a JWT, read on the wall clock.
struct HeldAccessToken: Sendable, Hashable {
    /// The token. Secret.
    var value: String
    /// Monotonic deadline from `expires_in`; nil when the provider gave no lifetime.
    var localDeadline: Duration?
    /// The token's own `exp`, when it is a JWT carrying one (not verified: only a hint).
    var expiration: Date?

    init(value: String, expiresIn: Duration?, mintedAt: Duration) {
        self.value = value
        self.localDeadline = expiresIn.map { mintedAt + $0 }
        self.expiration = Self.expiration(of: value)
    }

    /// The `exp` of a JWT-shaped token, or nil for an opaque one.
    static func expiration(of token: String) -> Date? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = try? Base64URL.decode(parts[1]),
            let claims = try? JSONValue(parsing: payload),
            let exp = claims["exp"].flatMap(NumericDate.seconds)
        else { return nil }
        return Date(timeIntervalSince1970: exp)
    }
}

/// Decides whether a held access token may be served (T1, T3).
struct AccessTokenFreshness: Sendable, Hashable {
    /// Refresh when less than this is left (T1, default 2 minutes).
    var margin: Duration
    /// Set once a brand-new token read expired by its `exp`: the device clock is fast, so
    /// only the local deadline is trusted for the rest of the process (T3).
    var clockIsFast = false

    /// What to do with a token.
    enum Verdict: Equatable {
        /// Serve it.
        case serve
        /// Refresh: the local deadline is near or past.
        case expired
        /// Refresh once: the local deadline is fine but `exp` says otherwise (T3).
        case deadlinesDisagree
    }

    /// The lead a token that nothing can renew keeps before its expiry (P13): the margin exists
    /// to refresh ahead of time, and without a refresh token the token is served to its end,
    /// less the time a request takes to reach the resource.
    static let lastUseLead = Duration.seconds(5)

    /// Whether `token` may be served now. `renewable` says whether a refresh token stands
    /// behind it: only then is it given up `margin` ahead of its expiry (T1, P13).
    func verdict(for token: HeldAccessToken, monotonicNow: Duration, wallNow: Date, renewable: Bool = true) -> Verdict {
        let margin = renewable ? margin : min(margin, Self.lastUseLead)
        if let deadline = token.localDeadline, deadline - monotonicNow <= margin { return .expired }
        if !clockIsFast, let expiration = token.expiration,
            expiration.timeIntervalSince(wallNow) <= Self.seconds(margin)
        {
            return token.localDeadline == nil ? .expired : .deadlinesDisagree
        }
        return .serve
    }

    /// After refreshing because the deadlines disagreed: if the brand-new token still reads
    /// expired by `exp`, the wall clock is fast; trust the local deadline from now on.
    mutating func checkFreshToken(_ token: HeldAccessToken, monotonicNow: Duration, wallNow: Date) {
        guard token.localDeadline != nil, let expiration = token.expiration else { return }
        if expiration.timeIntervalSince(wallNow) <= Self.seconds(margin) { clockIsFast = true }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let parts = duration.components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
