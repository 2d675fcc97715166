import VersolaHTTP
import Foundation

/// Fetches and caches the provider's metadata for one engine (A1, A16, R5).
///
/// The locations (``MetadataLocation``) are asked in the order RFC 8414 §5 gives, or with the
/// OpenID location first when `openid` is among the scopes. Probing is not fetching
/// (``MetadataSearch``): each location is asked once, and one that answers anything but a
/// metadata document passes to the next at once; the first document found is checked (its
/// `issuer` must equal the configured one exactly, A1) and used, with the configuration's
/// endpoint overrides laid over it (A18). When every location failed and one of them failed in
/// a way R5 repeats, the whole search is repeated under the operation's budget (after the
/// server's `Retry-After`, R8). When no location has a document, a configuration that names the
/// authorization and token endpoints is used alone; otherwise the error names each URL asked
/// and what it answered. A successful answer is cached for the life of the client; a failure
/// is not, so the next call tries again. Concurrent callers share one fetch.
///
/// ```swift
/// let discovery = DiscoveryClient(configuration: configuration, sender: sender)
/// let metadata = try await discovery.metadata(budget: budget)
/// ```
package actor DiscoveryClient {
    /// The configuration whose issuer is discovered.
    public let configuration: ClientConfiguration
    private let sender: EndpointSender
    private var cached: ProviderMetadata?
    /// Whether `cached` was read from the provider cache rather than fetched by this client.
    private var cachedWasKept = false
    private var flight = SingleFlight<Fetched>()

    /// What a fetch found, and whether it came from the provider cache.
    private struct Fetched: Sendable {
        var metadata: ProviderMetadata
        var kept: Bool
    }

    /// Creates a client; nothing is fetched until ``metadata(budget:)``.
    public init(configuration: ClientConfiguration, sender: EndpointSender) {
        self.configuration = configuration
        self.sender = sender
    }

    /// The OpenID Connect discovery URL for an issuer: a trailing `/` of the issuer is dropped
    /// before `/.well-known/openid-configuration` is appended (OpenID Connect Discovery §4).
    /// - Returns: nil when the result is not a URL.
    public static func documentURL(forIssuer issuer: String) -> URL? {
        var base = issuer
        if base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + "/.well-known/openid-configuration")
    }

    /// The provider's metadata: cached, or fetched and checked now.
    /// - Parameter budget: the operation's budget (R1); used by the fetch this call starts.
    /// - Throws: `.configuration(.invalidConfiguration)` when the configuration is invalid
    ///   (before any request); the ``ProviderMetadata`` checks' errors (A1); `.recoverable` when
    ///   the provider did not answer usably after the `.read` repeats.
    public func metadata(budget: OperationBudget) async throws(VersolaError) -> ProviderMetadata {
        if let cached { return cached }
        let configuration = configuration
        let sender = sender
        let task = flight.join { await Self.fetch(configuration: configuration, sender: sender, budget: budget) }
        let result = await task.value
        _ = flight.finish(task)
        if case .success(let fetched) = result, cached == nil {
            cached = fetched.metadata
            cachedWasKept = fetched.kept
        }
        return try result.get().metadata
    }

    /// The cached metadata, without fetching.
    public var cachedMetadata: ProviderMetadata? { cached }

    /// Forgets metadata read from the provider cache when `error` is an endpoint's 404 (A16): the
    /// provider has moved its endpoints since the copy was kept, so the next call discovers
    /// again. Metadata this client fetched itself is kept.
    public func forgetKeptCopy(after error: VersolaError) {
        guard cachedWasKept, case .recoverable(.server(let failure)) = error, failure.status == 404 else { return }
        cached = nil
        cachedWasKept = false
        sender.environment.providerCache?.remove(.metadata, issuer: configuration.issuer)
        sender.environment.log.record(
            VersolaLogEvent(.info, "an endpoint of the kept metadata of \(configuration.issuer) answered 404; discovering again"))
    }

    private static func fetch(
        configuration: ClientConfiguration, sender: EndpointSender, budget: OperationBudget
    ) async -> Result<Fetched, VersolaError> {
        let environment = sender.environment
        do throws(VersolaError) {
            try configuration.validate()
            let issuer = configuration.issuer
            if let kept = environment.providerCache?.metadata(issuer: issuer, now: environment.clock.wallClockNow, log: environment.log) {
                environment.log.record(VersolaLogEvent(.debug, "metadata of \(issuer) from the provider cache"))
                return .success(Fetched(metadata: kept.overridden(by: configuration.endpoints), kept: true))
            }
            return .success(Fetched(metadata: try await search(configuration: configuration, sender: sender, budget: budget), kept: false))
        } catch {
            environment.log.record(VersolaLogEvent(.warning, "discovery of \(configuration.issuer) failed: \(error)"))
            return .failure(error)
        }
    }

    /// Asks the issuer's metadata locations (``MetadataSearch``) and keeps what is found.
    private static func search(
        configuration: ClientConfiguration, sender: EndpointSender, budget: OperationBudget
    ) async throws(VersolaError) -> ProviderMetadata {
        let environment = sender.environment
        let locations = MetadataLocation.candidates(
            forIssuer: configuration.issuer, openIDFirst: MetadataLocation.asksOpenIDFirst(configuration))
        guard !locations.isEmpty else {
            throw .configuration(.invalidConfiguration("issuer \(configuration.issuer) gives no discovery URL"))
        }
        var search = MetadataSearch(locations: locations, issuer: configuration.issuer)
        var action = search.start()
        while true {
            switch action {
            case .ask(let location):
                var request = HTTPRequest(method: .get, url: location.url)
                request.headers.add("Accept", "application/json")
                do throws(VersolaError) {
                    let response = try await sender.send(request, kind: .probe, budget: budget)
                    action = search.answered(response, now: environment.clock.wallClockNow)
                } catch {
                    action = search.failed(error)
                }
            case .use(let metadata, let location, let cacheControl):
                environment.log.record(VersolaLogEvent(.debug, "discovered \(metadata.issuer) at \(location.url.absoluteString)"))
                environment.providerCache?.keep(
                    metadata, cacheControl: cacheControl, now: environment.clock.wallClockNow, log: environment.log)
                return metadata.overridden(by: configuration.endpoints)
            case .repeatSearch(let transient):
                try await waitToRepeat(search.searches, after: transient, sender: sender, budget: budget)
                action = search.repeatSearch()
            case .notFound(let misses):
                guard configuration.endpoints.sufficeWithoutMetadata else {
                    throw noMetadata(issuer: configuration.issuer, misses: misses)
                }
                environment.log.record(
                    VersolaLogEvent(.debug, "\(configuration.issuer) publishes no metadata; using the configured endpoints"))
                return try ProviderMetadata(issuer: configuration.issuer, endpoints: configuration.endpoints)
            case .fail(let error):
                throw error
            }
        }
    }

    /// Waits before the search is repeated (R5): the server's `Retry-After`, else the policy's
    /// backoff. When the attempts are used up or the wait does not fit the budget, the failure
    /// ends the operation instead, and an unmet `Retry-After` closes the origin until then (R8).
    private static func waitToRepeat(
        _ searches: Int, after transient: MetadataSearch.Transient, sender: EndpointSender, budget: OperationBudget
    ) async throws(VersolaError) {
        let environment = sender.environment
        let wait = transient.retryAfter ?? budget.policy.backoff(afterFailures: searches, random: environment.random)
        guard searches < budget.policy.maxAttempts, budget.fits(wait) else {
            switch transient {
            case .status(let status, let retryAfter, let origin):
                if let retryAfter { environment.http.close(origin, for: retryAfter, status: status) }
                throw .recoverable(
                    .server(
                        ServerFailure(
                            status: status, retryAfter: retryAfter, failedRequests: budget.failedRequests,
                            elapsed: budget.elapsed)))
            case .network(let failure):
                throw .recoverable(.network(failure))
            }
        }
        environment.log.record(VersolaLogEvent(.debug, "no location had metadata; searching again in \(wait)"))
        do {
            try await environment.clock.sleep(for: wait)
        } catch {
            throw .recoverable(.systemCancelled)
        }
        budget.recordWait(wait)
    }

    /// No location had metadata: most often a mistyped issuer (a path too many or too few), else
    /// a server that publishes none and needs its endpoints given.
    private static func noMetadata(issuer: String, misses: [MetadataSearch.Miss]) -> VersolaError {
        let tried = misses.map { "\($0.url.absoluteString) answered \($0.answer)" }.joined(separator: "; ")
        return .configuration(
            .invalidConfiguration(
                "no provider metadata at \(issuer) (\(tried)): check the issuer (--issuer), which must be exactly "
                    + "the provider's, or, for a server that publishes no metadata, give its endpoints "
                    + "(--endpoint authorization=URL --endpoint token=URL)"))
    }
}
