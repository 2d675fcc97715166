import Testing

@testable import Versola

/// Which lookup a caller of `Session.accessToken(forceRefresh:)` joins (T2, T4): callers that
/// miss the cache share one lookup, and a caller that forces a refresh never settles for a
/// lookup that may serve the cached token.
@Suite struct TokenLookupTests {
    /// A lookup that answers `value` at once; the tests compare the tasks it runs in.
    private static func work(_ value: String) -> @Sendable () async -> Result<String, VersolaError> {
        { .success(value) }
    }

    @Test func unforcedCallersShareOneLookup() async {
        var cache = Session.TokenCache()
        let first = cache.joinLookup(forced: false, or: Self.work("first"))
        let second = cache.joinLookup(forced: false, or: Self.work("second"))
        #expect(first == second)
        #expect(await second.value == .success("first"))
    }

    @Test func aForcedCallerDoesNotJoinALookupThatMayServeTheCache() async {
        var cache = Session.TokenCache()
        let unforced = cache.joinLookup(forced: false, or: Self.work("cached"))
        let forced = cache.joinLookup(forced: true, or: Self.work("refreshed"))
        #expect(forced != unforced)
        #expect(await forced.value == .success("refreshed"))
        // A second forced caller shares the forced lookup, and so does any later caller.
        #expect(cache.joinLookup(forced: true, or: Self.work("again")) == forced)
        #expect(cache.joinLookup(forced: false, or: Self.work("later")) == forced)
    }

    @Test func anEndedLookupIsNotJoined() async {
        var cache = Session.TokenCache()
        let forced = cache.joinLookup(forced: true, or: Self.work("one"))
        _ = await forced.value
        cache.endLookup(forced: true)
        let next = cache.joinLookup(forced: false, or: Self.work("two"))
        #expect(next != forced)
        #expect(await next.value == .success("two"))
        // Ending the forced lookup left the unforced one under way, and the other way round.
        cache.endLookup(forced: true)
        #expect(cache.joinLookup(forced: false, or: Self.work("three")) == next)
    }
}
