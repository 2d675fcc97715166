import VersolaHTTP
import Foundation

/// What the engine's parts share: the retrying HTTP client and the injected clock and
/// random source. Tests replace each.
public struct EngineEnvironment: Sendable {
    /// Sends every request, with the retry rules of R1–R8.
    public let http: RetryingClient
    /// The clock for budgets, expiry and token times.
    public var clock: any VersolaClock { http.clock }
    /// Random bytes for state, nonce, PKCE verifiers and jitter.
    public var random: any RandomSource { http.random }
    /// Where diagnostic events go (never secrets).
    public let log: any VersolaLogSink

    /// Creates an environment.
    public init(http: RetryingClient, log: any VersolaLogSink = SilentLogSink()) {
        self.http = http
        self.log = log
    }

    /// The real thing: libcurl, the system clock and random source, no logging.
    public static func system(transport options: TransportOptions = TransportOptions()) -> EngineEnvironment {
        EngineEnvironment(
            http: RetryingClient(
                transport: CurlTransport(), clock: SystemClock(), random: SystemRandomSource(), defaultOptions: options))
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
