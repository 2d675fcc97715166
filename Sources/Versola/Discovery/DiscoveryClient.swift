import VersolaHTTP
import Foundation

/// Fetches and caches the provider's metadata for one engine (A1, A16, R5).
///
/// The locations are tried in the order RFC 8414 §5 gives for a server that may speak either
/// protocol (the order the MCP authorization rules spell out): for `https://h/tenant`,
/// 1. `https://h/.well-known/oauth-authorization-server/tenant` (RFC 8414 §3.1: inserted before the path),
/// 2. `https://h/.well-known/openid-configuration/tenant` (RFC 8414 §5: the same, OpenID's name),
/// 3. `https://h/tenant/.well-known/openid-configuration` (OpenID Connect Discovery §4: appended);
///
/// an issuer without a path has the first and last only. A location that answers 404 (or
/// another "not here" status: 400, 401, 403, 405, 410) passes to the next; the first document
/// found is checked (its `issuer` must equal the configured one exactly, A1) and used, with the
/// configuration's endpoint overrides laid over it (A18). When no location has one, a
/// configuration that names the authorization and token endpoints is used alone; otherwise the
/// error says what was tried. Each fetch follows the `.read` repeat rules (R5). A successful
/// answer is cached for the life of the client; a failure is not, so the next call tries
/// again. Concurrent callers share one fetch.
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

    /// Where an issuer's metadata may be, in the order they are tried (RFC 8414 §3.1 and §5),
    /// each with the kind of document it holds.
    public static func metadataLocations(forIssuer issuer: String) -> [(url: URL, source: ProviderMetadata.Source)] {
        guard let (origin, path) = WellKnownURL.parts(of: issuer) else { return [] }
        var locations: [(URL, ProviderMetadata.Source)] = []
        if let url = URL(string: origin + "/.well-known/oauth-authorization-server" + path) {
            locations.append((url, .oauthAuthorizationServer))
        }
        if !path.isEmpty, let url = URL(string: origin + "/.well-known/openid-configuration" + path) {
            locations.append((url, .openIDConnect))
        }
        if let url = documentURL(forIssuer: issuer) { locations.append((url, .openIDConnect)) }
        return locations
    }

    /// The statuses that say "no document here" rather than "the server failed".
    private static let notHere: Set<Int> = [400, 401, 403, 404, 405, 410]

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
            let locations = metadataLocations(forIssuer: configuration.issuer)
            guard !locations.isEmpty else {
                throw .configuration(.invalidConfiguration("issuer \(configuration.issuer) gives no discovery URL"))
            }
            var statuses: [Int] = []
            for (url, source) in locations {
                var request = HTTPRequest(method: .get, url: url)
                request.headers.add("Accept", "application/json")
                let response = try await sender.send(request, kind: .read, budget: budget)
                if notHere.contains(response.status) {
                    statuses.append(response.status)
                    continue
                }
                guard response.status == 200 else {
                    throw .recoverable(
                        .server(
                            ServerFailure(
                                status: response.status, failedRequests: budget.failedRequests, elapsed: budget.elapsed)))
                }
                let metadata = try ProviderMetadata(
                    parsing: response.body, configuredIssuer: configuration.issuer, source: source)
                sender.environment.log.record(VersolaLogEvent(.debug, "discovered \(metadata.issuer) at \(url.absoluteString)"))
                return .success(metadata.overridden(by: configuration.endpoints))
            }
            if configuration.endpoints.sufficeWithoutMetadata {
                sender.environment.log.record(
                    VersolaLogEvent(.debug, "\(configuration.issuer) publishes no metadata; using the configured endpoints"))
                return .success(try ProviderMetadata(issuer: configuration.issuer, endpoints: configuration.endpoints))
            }
            throw noMetadata(issuer: configuration.issuer, tried: locations.map(\.url), statuses: statuses)
        } catch {
            sender.environment.log.record(VersolaLogEvent(.warning, "discovery of \(configuration.issuer) failed: \(error)"))
            return .failure(error)
        }
    }

    /// No location had metadata: most often a mistyped issuer (a path too many or too few), else
    /// a server that publishes none and needs its endpoints given.
    private static func noMetadata(issuer: String, tried: [URL], statuses: [Int]) -> VersolaError {
        let answers = Set(statuses).sorted().map(String.init).joined(separator: ", ")
        return .configuration(
            .invalidConfiguration(
                "no provider metadata at \(issuer) (tried \(tried.map(\.absoluteString).joined(separator: ", ")); "
                    + "answered \(answers)): check the issuer (--issuer), which must be exactly the provider's, "
                    + "or, for a server that publishes no metadata, give its endpoints "
                    + "(--endpoint authorization=URL --endpoint token=URL)"))
    }
}
