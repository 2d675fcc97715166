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
    private var flight = SingleFlight<ProviderMetadata>()

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
        if case .success(let metadata) = result, cached == nil { cached = metadata }
        return try result.get()
    }

    /// The cached metadata, without fetching.
    public var cachedMetadata: ProviderMetadata? { cached }

    private static func fetch(
        configuration: ClientConfiguration, sender: EndpointSender, budget: OperationBudget
    ) async -> Result<ProviderMetadata, VersolaError> {
        do throws(VersolaError) {
            try configuration.validate()
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
                        action = search.answered(response, now: sender.environment.clock.wallClockNow)
                    } catch {
                        action = search.failed(error)
                    }
                case .use(let metadata, let location):
                    sender.environment.log.record(
                        VersolaLogEvent(.debug, "discovered \(metadata.issuer) at \(location.url.absoluteString)"))
                    return .success(metadata.overridden(by: configuration.endpoints))
                case .repeatSearch(let transient):
                    try await waitToRepeat(search.searches, after: transient, sender: sender, budget: budget)
                    action = search.repeatSearch()
                case .notFound(let misses):
                    if configuration.endpoints.sufficeWithoutMetadata {
                        sender.environment.log.record(
                            VersolaLogEvent(.debug, "\(configuration.issuer) publishes no metadata; using the configured endpoints"))
                        return .success(try ProviderMetadata(issuer: configuration.issuer, endpoints: configuration.endpoints))
                    }
                    throw noMetadata(issuer: configuration.issuer, misses: misses)
                case .fail(let error):
                    throw error
                }
            }
        } catch {
            sender.environment.log.record(VersolaLogEvent(.warning, "discovery of \(configuration.issuer) failed: \(error)"))
            return .failure(error)
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
