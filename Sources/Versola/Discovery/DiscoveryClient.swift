import VersolaHTTP
import Foundation

/// Fetches and caches the provider's discovery document for one engine (A1, R5).
///
/// The document is read from `issuer + "/.well-known/openid-configuration"` (an issuer with a
/// path keeps it: `https://h/tenant` → `https://h/tenant/.well-known/openid-configuration`),
/// with the `.read` repeat rules (R5). A successful answer is cached for the life of the
/// client; a failure is not, so the next call tries again. Concurrent callers share one fetch.
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

    /// The discovery URL for an issuer: a trailing `/` of the issuer is dropped before
    /// `/.well-known/openid-configuration` is appended (OpenID Connect Discovery §4).
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
            guard let url = documentURL(forIssuer: configuration.issuer) else {
                throw .configuration(.invalidConfiguration("issuer \(configuration.issuer) gives no discovery URL"))
            }
            var request = HTTPRequest(method: .get, url: url)
            request.headers.add("Accept", "application/json")
            let response = try await sender.send(request, kind: .read, budget: budget)
            if response.status == 404 || response.status == 410 {
                // No document there: no retry helps; the issuer is most likely wrong (E4).
                throw .configuration(
                    .invalidConfiguration(
                        "the provider has no discovery document at \(url) (it answered \(response.status)): check the "
                            + "issuer \(configuration.issuer) (--issuer): it likely lacks or adds a path (a realm, a tenant)"))
            }
            guard response.status == 200 else {
                throw .recoverable(
                    .server(
                        ServerFailure(status: response.status, failedRequests: budget.failedRequests, elapsed: budget.elapsed)))
            }
            let metadata = try ProviderMetadata(parsing: response.body, configuredIssuer: configuration.issuer)
            sender.environment.log.record(VersolaLogEvent(.debug, "discovered \(metadata.issuer)"))
            return .success(metadata)
        } catch {
            sender.environment.log.record(VersolaLogEvent(.warning, "discovery of \(configuration.issuer) failed: \(error)"))
            return .failure(error)
        }
    }
}
