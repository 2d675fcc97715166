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

    /// Seconds since 1970 for an RFC 3339 UTC time as ``rfc3339(_:)`` writes it; nil for any
    /// other text.
    static func seconds(rfc3339 text: String) -> Int64? {
        let bytes = Array(text.utf8)
        // `YYYY-MM-DDTHH:MM:SSZ`: the separators at fixed places, digits between them.
        let separators: [Int: UInt8] = [4: UInt8(ascii: "-"), 7: UInt8(ascii: "-"), 10: UInt8(ascii: "T"),
            13: UInt8(ascii: ":"), 16: UInt8(ascii: ":"), 19: UInt8(ascii: "Z")]
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard bytes.count == 20,
            bytes.indices.allSatisfy({ index in separators[index].map { bytes[index] == $0 } ?? digits.contains(bytes[index]) })
        else { return nil }
        func number(_ start: Int, _ count: Int) -> Int32 {
            bytes[start..<start + count].reduce(0) { $0 * 10 + Int32($1 - UInt8(ascii: "0")) }
        }
        var parts = tm()
        parts.tm_year = number(0, 4) - 1900
        parts.tm_mon = number(5, 2) - 1
        parts.tm_mday = number(8, 2)
        parts.tm_hour = number(11, 2)
        parts.tm_min = number(14, 2)
        parts.tm_sec = number(17, 2)
        return Int64(timegm(&parts))
    }
}
