import Foundation
import Testing

@testable import VersolaHTTP
import VersolaTesting

@Suite struct ClockAndRandomTests {
    @Test func manualClockSleepAdvancesAtOnceAndRecords() async throws {
        let clock = ManualClock(wallClock: Date(timeIntervalSince1970: 1000))
        try await clock.sleep(for: .milliseconds(1500))
        try await clock.sleep(for: .seconds(2))
        #expect(clock.sleeps == [.milliseconds(1500), .seconds(2)])
        #expect(clock.monotonicNow == .milliseconds(3500))
        #expect(clock.wallClockNow == Date(timeIntervalSince1970: 1003.5))
        clock.advance(by: .seconds(10))
        #expect(clock.monotonicNow == .milliseconds(13_500))
        #expect(clock.sleeps.count == 2)
    }

    @Test func manualClockSleepHonoursCancellation() async {
        let clock = ManualClock()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeps.isEmpty)
    }

    @Test func systemClockIsMonotonic() async throws {
        let clock = SystemClock()
        let first = clock.monotonicNow
        try await clock.sleep(for: .milliseconds(1))
        #expect(clock.monotonicNow > first)
    }

    /// Filling in place draws what ``RandomSource/bytes(_:)`` would (the default, for a seeded
    /// source) or fills every byte from the system generator.
    @Test func fillingInPlaceDrawsWhatBytesWould() {
        let a = SeededRandomSource(seed: 9)
        let b = SeededRandomSource(seed: 9)
        var filled = [UInt8](repeating: 0, count: 16)
        filled.withUnsafeMutableBufferPointer { a.fill($0) }
        #expect(filled == b.bytes(16))
        var system = [[UInt8]](repeating: [UInt8](repeating: 0, count: 16), count: 3)
        for index in system.indices { system[index].withUnsafeMutableBufferPointer { SystemRandomSource().fill($0) } }
        #expect(Set(system).count == 3)
        #expect(system.allSatisfy { $0.contains { $0 != 0 } })
    }

    @Test func seededRandomIsDeterministicAndUnitIntervalInRange() {
        let a = SeededRandomSource(seed: 5)
        let b = SeededRandomSource(seed: 5)
        #expect(a.bytes(33) == b.bytes(33))
        #expect(a.bytes(0).isEmpty && a.bytes(-3).isEmpty)
        for _ in 0..<1000 {
            let value = a.unitInterval()
            #expect(value >= 0 && value < 1)
        }
    }

    @Test func systemRandomGivesTheCountAsked() {
        let random = SystemRandomSource()
        #expect(random.bytes(0).isEmpty)
        #expect(random.bytes(13).count == 13)
        #expect(random.bytes(32) != random.bytes(32))
    }
}

@Suite struct OriginTests {
    @Test(arguments: [
        ("HTTPS://Example.COM:443/a?b", "https://example.com"), ("http://localhost:80/", "http://localhost"),
        ("http://127.0.0.1:8080/x", "http://127.0.0.1:8080"), ("https://[::1]:8443/", "https://[::1]:8443"),
        ("https://idp.example:444", "https://idp.example:444"),
    ])
    func normalises(text: String, expected: String) throws {
        let url = try #require(URL(string: text))
        let origin = try #require(Origin(url: url))
        #expect(origin.description == expected)
    }

    @Test func sameOriginWhateverThePath() throws {
        let a = try #require(URL(string: "https://IDP.example:443/token"))
        let b = try #require(URL(string: "https://idp.example/jwks"))
        #expect(Origin(url: a) == Origin(url: b))
    }

    @Test(arguments: [
        ("localhost", true), ("127.0.0.1", true), ("127.255.0.9", true), ("::1", true), ("[::1]", true),
        ("128.0.0.1", false), ("127.0.0", false), ("127.0.0.256", false), ("127.0.0.1.evil.com", false),
        ("localhost.evil.com", false), ("example.com", false), ("127.a.0.1", false),
    ])
    func loopback(host: String, expected: Bool) throws {
        #expect(try #require(Origin(scheme: "http", host: host)).isLoopback == expected)
    }

    @Test func invalidPartsAreNil() {
        #expect(Origin(scheme: "", host: "a") == nil)
        #expect(Origin(scheme: "https", host: "") == nil)
        #expect(Origin(scheme: "https", host: "a", port: 70_000) == nil)
    }
}
