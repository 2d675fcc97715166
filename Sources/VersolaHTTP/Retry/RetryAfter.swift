import Foundation

/// The `Retry-After` header (RFC 9110 §10.2.3), read on 429 and 503 answers (R8).
public enum RetryAfter {
    /// The longest wait a `Retry-After` can ask for: one day. A larger value (or a date further
    /// away) is read as one day, so a wild header cannot overflow time arithmetic or close an
    /// origin for good.
    public static let longest: Duration = .seconds(86_400)

    /// How long the header asks the client to wait, or nil when it is not a valid value.
    ///
    /// Accepts delta-seconds (digits only) and the three HTTP-date formats: IMF-fixdate
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
    /// (`Sun Nov  6 08:49:37 1994`). A date in the past gives zero; anything over ``longest``
    /// gives ``longest``. Surrounding spaces are ignored; anything else is nil. Never traps.
    /// - Parameters:
    ///   - value: the header value.
    ///   - now: the current wall-clock time, for dates.
    public static func parse(_ value: String, now: Date) -> Duration? {
        let bytes = Array(value.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed())
        guard !bytes.isEmpty else { return nil }
        if bytes.allSatisfy(isDigit) {
            var seconds: Int64 = 0
            for digit in bytes {
                seconds = seconds * 10 + Int64(digit - 0x30)
                if seconds >= 86_400 { return longest }
            }
            return .seconds(seconds)
        }
        guard let epochSeconds = HTTPDate.epochSeconds(bytes, now: now) else { return nil }
        let wait = Double(epochSeconds) - now.timeIntervalSince1970
        guard wait > 0 else { return .zero }
        guard wait < 86_400 else { return longest }
        return .milliseconds(Int64((wait * 1000).rounded(.up)))
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
