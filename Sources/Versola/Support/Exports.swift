public import VersolaHTTP
public import VersolaJOSE
public import VersolaCrypto

// What an application needs of the HTTP layer, and nothing else: the failure types the
// error hierarchy carries, the messages it sends through a session, the transport options and
// retry policy of its configuration, and the clock, random source and transport it may inject.
// The retrying client and its tables, the request parser and the loopback server stay in
// `VersolaHTTP`, for the engine and its tests; the test doubles are in `VersolaTesting`.

/// Why a request of the HTTP layer failed; `VersolaError(_:)` turns it into the engine's error.
public typealias HTTPFailure = VersolaHTTP.HTTPFailure
/// What a provider said in an error answer (E14).
public typealias ProviderError = VersolaHTTP.ProviderError
/// A failure before any usable answer (E8).
public typealias NetworkFailure = VersolaHTTP.NetworkFailure
/// An answer the operation could not use (E8).
public typealias ServerFailure = VersolaHTTP.ServerFailure
/// An HTTP request to send through a session or client: method, URL, header fields and body.
public typealias HTTPRequest = VersolaHTTP.HTTPRequest
/// An HTTP answer: its status, header fields and body.
public typealias HTTPResponse = VersolaHTTP.HTTPResponse
/// The method of an HTTP request (`GET`, `POST`, …).
public typealias HTTPMethod = VersolaHTTP.HTTPMethod
/// The header fields of a request or answer, in order; names compare without regard to case.
public typealias HTTPHeaders = VersolaHTTP.HTTPHeaders
/// What the transport may spend and trust: timeouts, size limits and trust anchors.
public typealias TransportOptions = VersolaHTTP.TransportOptions
/// How many attempts and how much time an operation may use (R1).
public typealias RetryPolicy = VersolaHTTP.RetryPolicy
/// The clock the engine reads and waits on (inject one in tests).
public typealias VersolaClock = VersolaHTTP.VersolaClock
/// The system's clock, which the engine uses unless another is injected.
public typealias SystemClock = VersolaHTTP.SystemClock
/// Where random bytes come from (inject one in tests).
public typealias RandomSource = VersolaHTTP.RandomSource
/// The operating system's secure random bytes, which the engine uses unless another source is injected.
public typealias SystemRandomSource = VersolaHTTP.SystemRandomSource
/// Sends one HTTP attempt (inject one in tests).
public typealias HTTPTransport = VersolaHTTP.HTTPTransport
/// Why one HTTP attempt produced no usable answer, exact enough for the retry rules.
public typealias TransportError = VersolaHTTP.TransportError
/// Sends HTTP attempts with libcurl: the transport the engine uses unless another is injected.
public typealias CurlTransport = VersolaHTTP.CurlTransport

// Types of the lower layers that appear in the engine's public signatures, so that an app
// names each with `import Versola` alone.

/// A parsed JSON value (claims, metadata members).
public typealias JSONValue = VersolaJOSE.JSONValue
/// A JSON object with its members in order: ``UserInfo/claims``, the provider's metadata as sent.
public typealias JSONObject = VersolaJOSE.JSONObject
/// A JSON Web Key (RFC 7517): a DPoP key's public half.
public typealias JWK = VersolaJOSE.JWK
/// A JSON Web Key Set: the provider's signing keys.
public typealias JWKSet = VersolaJOSE.JWKSet
/// The registered claims of a JWT, checked.
public typealias JWTClaims = VersolaJOSE.JWTClaims
/// A JWS signature algorithm (`RS256`, `ES256`, …): the ID-token allow-list of the configuration.
public typealias SignatureAlgorithm = VersolaCrypto.SignatureAlgorithm
/// A 256-bit AES key: what a key source gives.
public typealias SymmetricKey = VersolaCrypto.SymmetricKey
/// A P-256 private key: a DPoP key's signing half.
public typealias P256PrivateKey = VersolaCrypto.P256PrivateKey
/// The key derivation a passphrase key source uses (scrypt), with its parameters.
public typealias KeyDerivation = VersolaCrypto.KeyDerivation
/// A URL's scheme, host and port: what DPoP nonces are kept per.
public typealias Origin = VersolaHTTP.Origin
