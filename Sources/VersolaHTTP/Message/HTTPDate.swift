import Foundation
import Glibc

/// HTTP-dates (RFC 9110 §5.6.7): a hand-written reader of the three formats, working on
/// bytes and never trapping, and the IMF-fixdate writer for the `Date` header.
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT` for the given seconds since 1970.
    static func format(secondsSince1970: Int) -> String {
        var seconds = time_t(secondsSince1970)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil,
            days.indices.contains(Int(parts.tm_wday)), monthNames.indices.contains(Int(parts.tm_mon))
        else { return "Thu, 01 Jan 1970 00:00:00 GMT" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(monthNames[Int(parts.tm_mon)]) "
            + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// The current time, formatted.
    static func now() -> String {
        format(secondsSince1970: Int(time(nil)))
    }

    private static func two(_ value: Int32) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let shortDays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// Seconds since 1970 of an HTTP-date, or nil when it is none of the three formats.
    static func epochSeconds(_ bytes: [UInt8], now: Date) -> Int64? {
        imfFixdate(bytes) ?? rfc850(bytes, now: now) ?? asctime(bytes)
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func imfFixdate(_ b: [UInt8]) -> Int64? {
        guard b.count == 29, word(b[0..<3], in: shortDays), b[3] == 0x2C, b[4] == 0x20,
            let day = number(b[5..<7]), b[7] == 0x20, let month = month(b[8..<11]), b[11] == 0x20,
            let year = number(b[12..<16]), b[16] == 0x20, let time = timeOfDay(b[17..<25]),
            text(b[25..<29]) == " GMT"
        else { return nil }
        return epoch(year: year, month: month, day: day, time: time)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`; a two-digit year more than 50 years ahead is in the past century.
    private static func rfc850(_ b: [UInt8], now: Date) -> Int64? {
        guard let comma = b.firstIndex(of: 0x2C), word(b[0..<comma], in: longDays) else { return nil }
        let rest = Array(b[(comma + 1)...])
        guard rest.count == 23, rest[0] == 0x20, let day = number(rest[1..<3]), rest[3] == 0x2D,
            let month = month(rest[4..<7]), rest[7] == 0x2D, let shortYear = number(rest[8..<10]), rest[10] == 0x20,
            let time = timeOfDay(rest[11..<19]), text(rest[19..<23]) == " GMT"
        else { return nil }
        let currentYear = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC") ?? .current, from: now).year ?? 2000
        var year = (currentYear / 100) * 100 + shortYear
        if year > currentYear + 50 { year -= 100 }
        return epoch(year: year, month: month, day: day, time: time)
    }

    /// `Sun Nov  6 08:49:37 1994` (the day padded with a space)
    private static func asctime(_ b: [UInt8]) -> Int64? {
        guard b.count == 24, word(b[0..<3], in: shortDays), b[3] == 0x20, let month = month(b[4..<7]), b[7] == 0x20
        else { return nil }
        let dayBytes = b[8] == 0x20 ? b[9..<10] : b[8..<10]
        guard let day = number(dayBytes), b[10] == 0x20, let time = timeOfDay(b[11..<19]), b[19] == 0x20,
            let year = number(b[20..<24])
        else { return nil }
        return epoch(year: year, month: month, day: day, time: time)
    }

    /// `HH:MM:SS` as seconds of the day (a leap second 60 allowed).
    private static func timeOfDay(_ b: ArraySlice<UInt8>) -> Int64? {
        let b = Array(b)
        guard b.count == 8, b[2] == 0x3A, b[5] == 0x3A, let hour = number(b[0..<2]), let minute = number(b[3..<5]),
            let second = number(b[6..<8]), hour < 24, minute < 60, second <= 60
        else { return nil }
        return Int64(hour * 3600 + minute * 60 + second)
    }

    private static func epoch(year: Int, month: Int, day: Int, time: Int64) -> Int64? {
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        return daysFromCivil(year: year, month: month, day: day) * 86_400 + time
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's civil-days algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func number<C: Collection>(_ b: C) -> Int? where C.Element == UInt8 {
        guard !b.isEmpty, b.count <= 4, b.allSatisfy(RetryAfter.isDigit) else { return nil }
        return b.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    private static func month(_ b: ArraySlice<UInt8>) -> Int? {
        months.firstIndex(of: text(b).lowercased()).map { $0 + 1 }
    }

    private static func word(_ b: ArraySlice<UInt8>, in names: [String]) -> Bool {
        names.contains(text(b).lowercased())
    }

    private static func text(_ b: ArraySlice<UInt8>) -> String {
        String(decoding: b, as: UTF8.self)
    }
}
