import VersolaHTTP
import Foundation

/// What the engine's parts share: the transport, clock and random source (tests and apps may
/// replace each), and where diagnostic events go. The retry rules (R1–R8) are the engine's own.
///
/// ```swift
/// let environment = EngineEnvironment(clock: SystemClock(), log: SilentLogSink())
/// let session = try Session(configuration: configuration, store: store, environment: environment)
/// await session.start()
/// ```
public struct EngineEnvironment: Sendable {
    /// Sends every request, with the retry rules of R1–R8 (the engine's own, not an app's).
    package let http: RetryingClient
    /// The clock for budgets, expiry and token times.
    public var clock: any VersolaClock { http.clock }
    /// Random bytes for state, nonce, PKCE verifiers and jitter.
    public var random: any RandomSource { http.random }
    /// Where diagnostic events go (never secrets).
    public let log: any VersolaLogSink
    /// Where providers' metadata and key sets are kept between processes (A16); nil keeps them
    /// only for the life of each client (the default: a library writes no files it was not asked to).
    public let providerCache: ProviderCache?

    /// Creates an environment; each part defaults to the real one.
    /// - Parameters:
    ///   - transport: sends one HTTP attempt (libcurl by default); the engine adds the retries.
    ///   - clock: the time the engine reads and waits on.
    ///   - random: where state, nonce, verifiers and jitter come from.
    ///   - log: where diagnostic events go (nowhere by default).
    ///   - providerCache: where metadata and key sets are kept between processes (none by default).
    public init(
        transport: any HTTPTransport = CurlTransport(), clock: any VersolaClock = SystemClock(),
        random: any RandomSource = SystemRandomSource(), log: any VersolaLogSink = SilentLogSink(),
        providerCache: ProviderCache? = nil
    ) {
        self.init(http: RetryingClient(transport: transport, clock: clock, random: random), log: log, providerCache: providerCache)
    }

    /// An environment around a retrying client the engine's own tests configure.
    package init(http: RetryingClient, log: any VersolaLogSink = SilentLogSink(), providerCache: ProviderCache? = nil) {
        self.http = http
        self.log = log
        self.providerCache = providerCache
    }

    /// The real thing: libcurl, the system clock and random source, no logging.
    /// - Parameters:
    ///   - options: the transport options of requests that bring none.
    ///   - providerCache: where metadata and key sets are kept between processes (none by
    ///     default; ``ProviderCache/standard(environment:)`` is the user's cache).
    public static func system(
        transport options: TransportOptions = TransportOptions(), providerCache: ProviderCache? = nil
    ) -> EngineEnvironment {
        EngineEnvironment(
            http: RetryingClient(
                transport: CurlTransport(), clock: SystemClock(), random: SystemRandomSource(), defaultOptions: options),
            providerCache: providerCache)
    }
}

/// Receives the engine's diagnostic events. Events never carry tokens, codes, verifiers or keys.
public protocol VersolaLogSink: Sendable {
    /// Records one event.
    func record(_ event: VersolaLogEvent)
}

/// One diagnostic event.
public struct VersolaLogEvent: Sendable, Hashable, CustomStringConvertible {
    /// How much an event matters, from detail for debugging to a failure.
    public enum Level: String, Sendable, Hashable {
        /// Detail for someone debugging the engine.
        case debug
        /// A normal step worth knowing about (a refresh, a skipped refetch).
        case info
        /// Something unexpected that the engine worked around.
        case warning
        /// A failure the operation reports.
        case error
    }
    /// How much it matters.
    public var level: Level
    /// What happened, in words, without secrets.
    public var message: String

    /// Creates an event.
    public init(_ level: Level, _ message: String) {
        self.level = level
        self.message = message
    }

    public var description: String { "[\(level.rawValue)] \(message)" }
}

/// The default sink: drops every event.
public struct SilentLogSink: VersolaLogSink {
    /// Creates the sink.
    public init() {}
    /// Drops the event.
    public func record(_ event: VersolaLogEvent) {}
}
