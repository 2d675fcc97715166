import Foundation
import Testing
import VersolaJOSE
@testable import Versola
import VersolaHTTP

@Suite struct AccessTokenFreshnessTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// An unsigned JWT-shaped token with this `exp` (only its payload is read).
    static func jwt(exp: Date) -> String {
        let payload = JSONValue.object(["exp": .integer(Int64(exp.timeIntervalSince1970))]).serializedBytes()
        return "eyJhbGciOiJSUzI1NiJ9." + Base64URL.encode(payload) + ".c2ln"
    }

    @Test("T1: served while more than the margin is left, refreshed within it, never served expired")
    func margin() {
        let freshness = AccessTokenFreshness(margin: .seconds(120))
        let token = HeldAccessToken(value: "opaque", expiresIn: .seconds(300), mintedAt: .seconds(1000))
        #expect(freshness.verdict(for: token, monotonicNow: .seconds(1000), wallNow: Self.now) == .serve)
        #expect(freshness.verdict(for: token, monotonicNow: .seconds(1179), wallNow: Self.now) == .serve)
        #expect(freshness.verdict(for: token, monotonicNow: .seconds(1180), wallNow: Self.now) == .expired)
        #expect(freshness.verdict(for: token, monotonicNow: .seconds(1400), wallNow: Self.now) == .expired)
    }

    @Test("T3: a local deadline that disagrees with exp refreshes once; a fast clock then trusts the local deadline")
    func fastClock() {
        var freshness = AccessTokenFreshness(margin: .seconds(120))
        // The device clock is an hour fast: exp (real time + 300 s) reads as already past.
        let fastWall = Self.now.addingTimeInterval(3600)
        let token = HeldAccessToken(value: Self.jwt(exp: Self.now.addingTimeInterval(300)), expiresIn: .seconds(300), mintedAt: .zero)
        #expect(freshness.verdict(for: token, monotonicNow: .seconds(10), wallNow: fastWall) == .deadlinesDisagree)
        // The refreshed token reads expired too: the clock is fast.
        let fresh = HeldAccessToken(value: Self.jwt(exp: Self.now.addingTimeInterval(310)), expiresIn: .seconds(300), mintedAt: .seconds(10))
        freshness.checkFreshToken(fresh, monotonicNow: .seconds(10), wallNow: fastWall)
        #expect(freshness.clockIsFast)
        #expect(freshness.verdict(for: fresh, monotonicNow: .seconds(20), wallNow: fastWall) == .serve)
        #expect(freshness.verdict(for: fresh, monotonicNow: .seconds(200), wallNow: fastWall) == .expired)
    }

    @Test("T3: a clock corrected after minting does not move the local deadline")
    func correctedClock() {
        let freshness = AccessTokenFreshness(margin: .seconds(120))
        let token = HeldAccessToken(value: "opaque", expiresIn: .seconds(600), mintedAt: .seconds(50))
        // The wall clock jumps a day; the monotonic deadline is unaffected.
        #expect(freshness.verdict(for: token, monotonicNow: .seconds(100), wallNow: Self.now.addingTimeInterval(86_400)) == .serve)
    }

    @Test("T3: an honest clock agreeing with exp serves; an expired exp without expires_in refreshes")
    func agreement() {
        var freshness = AccessTokenFreshness(margin: .seconds(120))
        let token = HeldAccessToken(value: Self.jwt(exp: Self.now.addingTimeInterval(600)), expiresIn: .seconds(600), mintedAt: .zero)
        #expect(freshness.verdict(for: token, monotonicNow: .zero, wallNow: Self.now) == .serve)
        freshness.checkFreshToken(token, monotonicNow: .zero, wallNow: Self.now)
        #expect(!freshness.clockIsFast)
        let noLifetime = HeldAccessToken(value: Self.jwt(exp: Self.now.addingTimeInterval(60)), expiresIn: nil, mintedAt: .zero)
        #expect(freshness.verdict(for: noLifetime, monotonicNow: .zero, wallNow: Self.now) == .expired)
        #expect(HeldAccessToken.expiration(of: "not.a.jwt!") == nil)
        #expect(HeldAccessToken.expiration(of: "opaque") == nil)
    }
}

extension AccessTokenFreshnessTests {
    @Test("P13 T1: a token nothing can renew is served to its last seconds, not given up a margin ahead")
    func unrenewableTokenServedToItsEnd() {
        let freshness = AccessTokenFreshness(margin: .seconds(120))
        let token = HeldAccessToken(value: "opaque", expiresIn: .seconds(60), mintedAt: .seconds(1000))
        #expect(freshness.verdict(for: token, monotonicNow: .seconds(1000), wallNow: Self.now) == .expired)
        #expect(freshness.verdict(for: token, monotonicNow: .seconds(1000), wallNow: Self.now, renewable: false) == .serve)
        #expect(freshness.verdict(for: token, monotonicNow: .seconds(1054), wallNow: Self.now, renewable: false) == .serve)
        #expect(freshness.verdict(for: token, monotonicNow: .seconds(1055), wallNow: Self.now, renewable: false) == .expired)
    }
}
