import VersolaHTTP
import Foundation
import Synchronization
import VersolaJOSE

/// The provider's signing keys (`jwks_uri`), fetched once and kept until a token names a key
/// the set does not have (A7).
///
/// When a token's `kid` is unknown, the engine fetches the set again,
/// at most once per ``refetchInterval`` (60 s on the injected clock): a flood of tokens with
/// made-up `kid`s costs the provider one request a minute. The interval starts when a refetch
/// succeeds, so a failed one (offline, 503) may be tried again at once. Fetches use the `.read`
/// repeat rules (R5); concurrent callers share one fetch. Made for an issuer, in an environment
/// with a ``ProviderCache``, it first takes the set kept there by an earlier process and keeps
/// each set it fetches (A16).
///
/// The engine makes one per client, for its ``IDTokenValidator``; with one at hand:
///
/// ```swift
/// if let set = keys.cachedKeySet { print(set.keys.count, "keys, the next refetch in", await keys.timeUntilRefetch()) }
/// ```
public actor JWKSCache {
    /// The shortest time between two refetches caused by unknown keys.
    public static let refetchInterval: Duration = .seconds(60)

    /// Where the keys are published.
    public let jwksURI: URL
    private let sender: EndpointSender
    /// The issuer whose set this is, for the provider cache; nil keeps nothing between processes.
    private let issuer: String?
    private var current: JWKSet? {
        didSet { snapshot.withLock { $0 = current } }
    }
    /// A copy of `current` readable without a hop onto the actor: validating a token against
    /// cached keys is on every login and refresh path and costs a few microseconds less.
    private nonisolated let snapshot = Mutex<JWKSet?>(nil)
    private var lastRefetch: Duration?
    private var flight = SingleFlight<JWKSet>()

    /// Creates a cache; nothing is fetched until asked.
    /// - Parameter issuer: the provider's issuer, under which the set is kept between processes
    ///   when the environment has a ``ProviderCache``; nil keeps nothing.
    package init(jwksURI: URL, sender: EndpointSender, issuer: String? = nil) {
        self.jwksURI = jwksURI
        self.sender = sender
        self.issuer = issuer
    }

    /// Creates a cache already holding a key set (restored, or for measurement).
    package init(jwksURI: URL, sender: EndpointSender, keySet: JWKSet) {
        self.jwksURI = jwksURI
        self.sender = sender
        self.issuer = nil
        snapshot.withLock { $0 = keySet }
        current = keySet
    }

    /// The cached key set, fetching it first when there is none.
    /// - Throws: `.recoverable` when the provider did not answer usably; `.configuration` for a
    ///   redirect or a refused URL.
    package func keySet(budget: OperationBudget) async throws(VersolaError) -> JWKSet {
        if let current { return current }
        let environment = sender.environment
        if let issuer,
            let kept = environment.providerCache?.keySet(
                issuer: issuer, uri: jwksURI, now: environment.clock.wallClockNow, log: environment.log)
        {
            current = kept
            return kept
        }
        return try await fetch(budget: budget)
    }

    /// The key set as cached now, without fetching (and without waiting for the actor).
    public nonisolated var cachedKeySet: JWKSet? { snapshot.withLock { $0 } }

    /// How long until the key set may be fetched again (zero when it may now).
    public func timeUntilRefetch() -> Duration {
        guard let lastRefetch else { return .zero }
        let left = Self.refetchInterval - (sender.environment.clock.monotonicNow - lastRefetch)
        return left > .zero ? left : .zero
    }

    /// Fetches the key set again because a token needs a key the cached one lacks.
    ///
    /// First `isSatisfied` is asked of the cached set (another caller may have refetched
    /// meanwhile); then a refetch already under way is joined; else a new one is made when the
    /// last successful refetch is at least ``refetchInterval`` old.
    /// - Parameters:
    ///   - isSatisfied: whether a set has what the caller needs (the key the token names).
    ///   - budget: the operation's budget, for the fetch.
    /// - Returns: a set that satisfies, or the newly fetched set (check it again), or nil when
    ///   the rate limit forbids a refetch now.
    /// - Throws: the fetch's error.
    package func refetch(
        unlessSatisfied isSatisfied: @Sendable (JWKSet) -> Bool, budget: OperationBudget
    ) async throws(VersolaError) -> JWKSet? {
        if let current, isSatisfied(current) { return current }
        if flight.isRunning { return try await fetch(budget: budget) }
        let now = sender.environment.clock.monotonicNow
        if let lastRefetch, now - lastRefetch < Self.refetchInterval {
            sender.environment.log.record(
                VersolaLogEvent(.info, "key set refetch skipped: the last one was less than 60 s ago"))
            return nil
        }
        let set = try await fetch(budget: budget)
        lastRefetch = sender.environment.clock.monotonicNow
        return set
    }

    private func fetch(budget: OperationBudget) async throws(VersolaError) -> JWKSet {
        let url = jwksURI
        let sender = sender
        let issuer = issuer
        let task = flight.join { await Self.download(url, issuer: issuer, sender: sender, budget: budget) }
        let result = await task.value
        if flight.finish(task), case .success(let set) = result { current = set }
        return try result.get()
    }

    private static func download(
        _ url: URL, issuer: String?, sender: EndpointSender, budget: OperationBudget
    ) async -> Result<JWKSet, VersolaError> {
        do throws(VersolaError) {
            var request = HTTPRequest(method: .get, url: url)
            request.headers.add("Accept", "application/jwk-set+json, application/json")
            let response = try await sender.send(request, kind: .read, budget: budget)
            guard response.status == 200, let set = try? JWKSet(parsing: response.body) else {
                // A key set that is not one is an answer the operation cannot use (E8).
                throw .recoverable(
                    .server(
                        ServerFailure(
                            status: response.status, failedRequests: budget.failedRequests, elapsed: budget.elapsed,
                            errorDescription: response.status == 200 ? "the jwks_uri answer is not a JWK set" : nil)))
            }
            for ignored in set.ignoredKeys {
                sender.environment.log.record(
                    VersolaLogEvent(.debug, "key \(ignored.keyID ?? "#\(ignored.index)") of the key set skipped: \(ignored.reason)"))
            }
            let environment = sender.environment
            if let issuer, let cache = environment.providerCache {
                cache.keep(
                    keySet: response.body, issuer: issuer, uri: url, cacheControl: response.headers["Cache-Control"],
                    now: environment.clock.wallClockNow, log: environment.log)
            }
            return .success(set)
        } catch {
            return .failure(error)
        }
    }
}
