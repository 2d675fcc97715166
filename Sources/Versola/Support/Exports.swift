public import VersolaHTTP

// What an application needs of the HTTP layer, and nothing else: the failure types the
// error hierarchy carries, the messages it sends through a session, the transport options and
// retry policy of its configuration, and the clock, random source and transport it may inject.
// The retry tables, the request parser and the loopback server stay in `VersolaHTTP`, for the
// engine and its tests; the test doubles are in `VersolaTesting`.

/// Why a request of the HTTP layer failed; `VersolaError(_:)` turns it into the engine's error.
public typealias HTTPFailure = VersolaHTTP.HTTPFailure
/// What a provider said in an error answer (E14).
public typealias ProviderError = VersolaHTTP.ProviderError
/// A failure before any usable answer (E8).
public typealias NetworkFailure = VersolaHTTP.NetworkFailure
/// An answer the operation could not use (E8).
public typealias ServerFailure = VersolaHTTP.ServerFailure
/// A request to send through a session or client.
public typealias HTTPRequest = VersolaHTTP.HTTPRequest
/// An answer.
public typealias HTTPResponse = VersolaHTTP.HTTPResponse
/// A request method.
public typealias HTTPMethod = VersolaHTTP.HTTPMethod
/// Header fields.
public typealias HTTPHeaders = VersolaHTTP.HTTPHeaders
/// Timeouts, size limits and trust anchors of the transport.
public typealias TransportOptions = VersolaHTTP.TransportOptions
/// How many attempts and how much time an operation may use (R1).
public typealias RetryPolicy = VersolaHTTP.RetryPolicy
/// One operation's budget of attempts and time (R1).
public typealias OperationBudget = VersolaHTTP.OperationBudget
/// What a request is for, which decides its repeats (R4–R7).
public typealias OperationKind = VersolaHTTP.OperationKind
/// The clock the engine reads and waits on (inject one in tests).
public typealias VersolaClock = VersolaHTTP.VersolaClock
/// The real clock.
public typealias SystemClock = VersolaHTTP.SystemClock
/// Where random bytes come from (inject one in tests).
public typealias RandomSource = VersolaHTTP.RandomSource
/// The real random source.
public typealias SystemRandomSource = VersolaHTTP.SystemRandomSource
/// Sends one HTTP attempt (inject one in tests).
public typealias HTTPTransport = VersolaHTTP.HTTPTransport
/// Why one attempt failed.
public typealias TransportError = VersolaHTTP.TransportError
/// The libcurl transport.
public typealias CurlTransport = VersolaHTTP.CurlTransport
/// Sends requests with the retry rules (R1–R8); the engine environment holds one.
public typealias RetryingClient = VersolaHTTP.RetryingClient
