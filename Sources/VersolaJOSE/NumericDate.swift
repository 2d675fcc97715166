import Foundation

/// A JWT NumericDate (RFC 7519 §2): seconds since 1970-01-01T00:00:00Z.
///
/// The one check every time claim (`exp`, `iat`, `nbf`, `auth_time`) goes through: a value
/// is usable only when it is a JSON number, finite, and between the years 1 and 9999
/// (±253 402 300 799 s). Anything else (`1e300`, `-1e300`, a string) is a claim error for the
/// caller, never a number that traps later when turned into an integer or a duration.
///
/// ```swift
/// NumericDate.seconds(.integer(1_800_000_000))   // 1.8e9
/// NumericDate.seconds(.double(1e300))            // nil
/// ```
public enum NumericDate {
    /// The largest magnitude accepted: 9999-12-31T23:59:59Z.
    public static let maximumMagnitude: Double = 253_402_300_799

    /// The seconds of `value`, or nil when it is not a number in the accepted range.
    public static func seconds(_ value: JSONValue) -> Double? {
        guard let seconds = value.double, seconds.isFinite, abs(seconds) <= maximumMagnitude else { return nil }
        return seconds
    }

    /// The whole seconds of `value` (rounded down), or nil as ``seconds(_:)``.
    public static func wholeSeconds(_ value: JSONValue) -> Int64? {
        seconds(value).map { Int64($0.rounded(.down)) }
    }
}
