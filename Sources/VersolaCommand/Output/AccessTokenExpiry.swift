import Foundation

/// How a token's expiry is written for people and for kubectl (`--format json`, the
/// ExecCredential's `expirationTimestamp`). The expiry itself comes from the session: the
/// provider's `expires_in`, else the `exp` of a JWT access token (``AccessToken/expiresAt``).
enum AccessTokenExpiry {
    /// RFC 3339 UTC for `seconds` since 1970: `2026-11-29T21:45:00Z`.
    static func rfc3339(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        // Digits by hand, not String(format:): the agent renders this for kubectl, and
        // Foundation's formatter would bring its locale machinery into the agent's memory.
        func digits(_ value: Int32, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return digits(parts.tm_year + 1900, 4) + "-" + digits(parts.tm_mon + 1, 2) + "-" + digits(parts.tm_mday, 2) + "T"
            + digits(parts.tm_hour, 2) + ":" + digits(parts.tm_min, 2) + ":" + digits(parts.tm_sec, 2) + "Z"
    }
}
