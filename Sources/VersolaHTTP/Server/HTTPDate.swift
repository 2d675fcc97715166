import Glibc

/// Formats the `Date` header value (RFC 9110 §5.6.7 IMF-fixdate).
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT` for the given seconds since 1970.
    static func format(secondsSince1970: Int) -> String {
        var seconds = time_t(secondsSince1970)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil,
            days.indices.contains(Int(parts.tm_wday)), months.indices.contains(Int(parts.tm_mon))
        else { return "Thu, 01 Jan 1970 00:00:00 GMT" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// The current time, formatted.
    static func now() -> String {
        format(secondsSince1970: Int(time(nil)))
    }

    private static func two(_ value: Int32) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
