import Foundation
import Testing

@testable import VersolaHTTP
import VersolaTesting

/// `Retry-After` parsing (R8): seconds and the three HTTP-date formats, never a crash.
@Suite struct RetryAfterTests {
    /// 1994-11-06T08:49:07Z, thirty seconds before the RFC's example date.
    let now = Date(timeIntervalSince1970: 784_111_747)

    @Test(arguments: [("0", 0), ("5", 5), ("120", 120), (" 7 ", 7), ("\t42", 42), ("86399", 86_399)])
    func deltaSeconds(text: String, seconds: Int64) {
        #expect(RetryAfter.parse(text, now: now) == .seconds(seconds))
    }

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",  // IMF-fixdate
        "Sunday, 06-Nov-94 08:49:37 GMT",  // RFC 850
        "Sun Nov  6 08:49:37 1994",  // asctime
    ])
    func eachDateFormat(text: String) {
        #expect(RetryAfter.parse(text, now: now) == .seconds(30))
    }

    @Test func asctimeWithTwoDigitDay() {
        let later = Date(timeIntervalSince1970: 784_111_747 + 10 * 86_400)
        #expect(RetryAfter.parse("Wed Nov 16 08:49:37 1994", now: later) == .seconds(30))
    }

    @Test(arguments: ["Sun, 06 Nov 1994 08:49:00 GMT", "Thu, 01 Jan 1970 00:00:00 GMT", "Sunday, 06-Nov-94 08:00:00 GMT"])
    func pastDatesAreZero(text: String) {
        #expect(RetryAfter.parse(text, now: now) == .zero)
    }

    @Test(arguments: ["99999999999999999999999999999", "86400", "1000000", "Fri, 31 Dec 9999 23:59:59 GMT"])
    func hugeValuesAreCappedAtOneDay(text: String) {
        #expect(RetryAfter.parse(text, now: now) == RetryAfter.longest)
    }

    @Test(arguments: [
        "", " ", "-5", "+5", "5.5", "1e3", "soon", "0x10", "٣",  // not digits
        "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Nov 1994 08:61:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37", "Sun, 6 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT",
        "Sun Nov 6 08:49:37 1994", "Sun Nov  6 08:49:37", "Sun, 00 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:3 GMT", String(repeating: "9", count: 10_000) + "x", "\u{0}",
    ])
    func garbageIsNil(text: String) {
        #expect(RetryAfter.parse(text, now: now) == nil)
    }

    @Test func leapYearDay() {
        let start = Date(timeIntervalSince1970: 951_782_400 - 10)  // 2000-02-29T00:00:00Z minus 10 s
        #expect(RetryAfter.parse("Tue, 29 Feb 2000 00:00:00 GMT", now: start) == .seconds(10))
        #expect(RetryAfter.parse("Thu, 29 Feb 2001 00:00:00 GMT", now: start) == nil)
    }

    @Test func fractionalNowRoundsUp() {
        let justBefore = Date(timeIntervalSince1970: 784_111_776.5)
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: justBefore) == .milliseconds(500))
    }

    @Test func randomBytesNeverTrap() {
        let random = SeededRandomSource(seed: 7)
        for length in 0..<200 {
            let bytes = random.bytes(length % 40)
            _ = RetryAfter.parse(String(decoding: bytes, as: UTF8.self), now: now)
        }
    }
}
