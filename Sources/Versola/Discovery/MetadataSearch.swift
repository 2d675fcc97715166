import VersolaHTTP
import Foundation
import VersolaJOSE

/// The search for an issuer's metadata across its candidate locations (A16), as a value that is
/// told what each location answered and says what to do next.
///
/// Probing is not fetching: a location that answers anything but a metadata document (any 4xx
/// or 5xx, a redirect, a body that is not a JSON object naming an `issuer`, HTML, a timeout or a
/// connection that broke) passes to the next at once, and nothing is repeated there. A document
/// that names an issuer is checked (A1) and used, or its error ends the search. When every
/// location failed and one of them failed in a way R5 repeats (the ``RetryTable``'s `.read`
/// column: 408, 429, 500, 502, 503, 504, a timeout, a broken connection), the whole search may
/// be repeated (``Action/repeatSearch(_:)``); otherwise nothing is there
/// (``Action/notFound(_:)``). A failure to reach the origin at all (no name, no connection, TLS)
/// ends the search at once: every location is on that origin.
///
/// ```swift
/// var search = MetadataSearch(locations: locations, issuer: issuer)
/// var action = search.start()
/// // .ask(location) → send it once, then action = search.answered(response, now: now)
/// ```
struct MetadataSearch: Sendable {
    /// What to do next.
    enum Action: Sendable {
        /// Ask this location, once.
        case ask(MetadataLocation)
        /// Use this document, found at this location, whose answer had this `Cache-Control`.
        case use(ProviderMetadata, MetadataLocation, cacheControl: String?)
        /// Every location failed, this one in a way worth repeating: repeat the whole search
        /// (``repeatSearch()``) when the attempts and the budget allow.
        case repeatSearch(Transient)
        /// No location has a document and none failed in a way worth repeating.
        case notFound([Miss])
        /// Stop with this error.
        case fail(VersolaError)
    }

    /// A failure worth repeating the search for.
    enum Transient: Sendable, Hashable {
        /// A status R5 repeats, with the `Retry-After` it gave (429, 503).
        case status(Int, retryAfter: Duration?, origin: Origin)
        /// A network failure R5 repeats.
        case network(NetworkFailure)
    }

    /// A location that held no document, and what it answered instead (short, provider text cleaned).
    struct Miss: Sendable, Hashable {
        /// Where.
        var url: URL
        /// What it answered: `404`, `200 text/html, not a metadata document`, `timed out`.
        var answer: String
    }

    /// The locations, in the order they are asked.
    let locations: [MetadataLocation]
    /// The configured issuer; a document must name it exactly (A1).
    let issuer: String
    /// The searches started so far (1 during the first).
    private(set) var searches = 1
    private var next = 0
    private var misses: [Miss] = []
    private var transient: Transient?

    /// A search of `locations` for `issuer`'s metadata.
    init(locations: [MetadataLocation], issuer: String) {
        self.locations = locations
        self.issuer = issuer
    }

    /// The first action.
    mutating func start() -> Action { advance() }

    /// Starts the search again from the first location.
    mutating func repeatSearch() -> Action {
        searches += 1
        next = 0
        misses = []
        transient = nil
        return advance()
    }

    /// The location last asked answered `response`.
    /// - Parameter now: the wall clock, for a `Retry-After` given as a date.
    mutating func answered(_ response: HTTPResponse, now: Date) -> Action {
        let location = locations[next - 1]
        let outcome = RequestOutcome(status: response.status)
        guard outcome == .success else {
            var answer = String(response.status)
            if outcome == .redirect, let target = response.headers["Location"] { answer += " to " + Self.cleaned(target) }
            var retryAfter: Duration?
            if outcome == .status429 || outcome == .status503 {
                retryAfter = response.headers["Retry-After"].flatMap { RetryAfter.parse($0, now: now) }
            }
            return miss(location, answer, outcome, .status(response.status, retryAfter: retryAfter, origin: response.origin))
        }
        guard let json = try? JSONValue(parsing: response.body), case .object(let document) = json,
            document["issuer"]?.string != nil
        else {
            let type = response.headers["Content-Type"].map { " " + Self.cleaned($0) } ?? ""
            return miss(location, "\(response.status)\(type), not a metadata document", outcome, nil)
        }
        do throws(VersolaError) {
            let metadata = try ProviderMetadata(document: document, configuredIssuer: issuer, source: location.source)
            return .use(metadata, location, cacheControl: response.headers["Cache-Control"])
        } catch {
            return .fail(error)
        }
    }

    /// Asking the location last asked failed with `error`.
    mutating func failed(_ error: VersolaError) -> Action {
        guard case .recoverable(.network(let failure)) = error else { return .fail(error) }
        let outcome = Self.outcome(of: failure.kind)
        switch failure.kind {
        case .timedOut, .failedAfterSending:
            let answer = failure.kind == .timedOut ? "no answer in time" : "the connection broke"
            return miss(locations[next - 1], answer, outcome, .network(failure))
        case .couldNotResolve, .couldNotConnect, .tls:
            // Every location is on this origin: none of the others can answer either.
            return RetryTable.decision(for: .read, after: outcome).repeats ? .repeatSearch(.network(failure)) : .fail(error)
        }
    }

    private mutating func miss(
        _ location: MetadataLocation, _ answer: String, _ outcome: RequestOutcome, _ failure: Transient?
    ) -> Action {
        misses.append(Miss(url: location.url, answer: answer))
        // R5, in its one place: the failures a read repeats are the ones worth a new search.
        if let failure, RetryTable.decision(for: .read, after: outcome).repeats {
            if transient == nil || failure.retryAfter != nil && transient?.retryAfter == nil { transient = failure }
        }
        return advance()
    }

    private mutating func advance() -> Action {
        if next < locations.count {
            next += 1
            return .ask(locations[next - 1])
        }
        if let transient { return .repeatSearch(transient) }
        return .notFound(misses)
    }

    private static func outcome(of kind: NetworkFailure.Kind) -> RequestOutcome {
        switch kind {
        case .couldNotResolve: .couldNotResolve
        case .couldNotConnect: .couldNotConnect
        case .failedAfterSending: .failedAfterSending
        case .timedOut: .timedOut
        case .tls: .tls
        }
    }

    /// Provider text for a message: control characters dropped, at most 60 characters.
    static func cleaned(_ text: String) -> String {
        let printable = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .control }))
        return printable.count > 60 ? printable.prefix(59) + "…" : printable
    }
}

extension MetadataSearch.Transient {
    /// The `Retry-After` the server gave, if any.
    var retryAfter: Duration? {
        if case .status(_, let retryAfter, _) = self { return retryAfter }
        return nil
    }
}
