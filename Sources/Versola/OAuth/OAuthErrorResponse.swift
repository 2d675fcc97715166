import VersolaHTTP
import VersolaJOSE

/// An OAuth 2.0 error answer (RFC 6749 §5.2): `error`, and optionally `error_description` and
/// `error_uri`. Extra members are ignored.
///
/// Only ``code`` ever decides what the engine does (E6, E9); the description and URI are kept
/// for logs and never matched.
///
/// ```swift
/// if let error = OAuthErrorResponse(body: response.body) {
///     throw error.versolaError(status: response.status)
/// }
/// ```
package struct OAuthErrorResponse: Sendable, Hashable, CustomStringConvertible {
    /// The `error` code.
    public var code: OAuthErrorCode
    /// The `error_description`, for logs only.
    public var errorDescription: String?
    /// The `error_uri`, for logs only.
    public var errorURI: String?

    /// Creates an error answer.
    public init(code: OAuthErrorCode, errorDescription: String? = nil, errorURI: String? = nil) {
        self.code = code
        self.errorDescription = errorDescription
        self.errorURI = errorURI
    }

    /// Reads a JSON error body. Never throws: a body that is not a JSON object with a non-empty
    /// string `error` gives nil. A non-string `error_description` or `error_uri` is dropped.
    public init?(body: some Collection<UInt8>) {
        guard let json = try? JSONValue(parsing: body) else { return nil }
        self.init(json: json)
    }

    /// Reads an error from a parsed JSON value; nil unless it is an object with a non-empty string `error`.
    public init?(json: JSONValue) {
        guard let code = json["error"]?.string, !code.isEmpty else { return nil }
        self.init(
            code: OAuthErrorCode(rawValue: code), errorDescription: json["error_description"]?.string,
            errorURI: json["error_uri"]?.string)
    }

    /// Reads an error from the query or form parameters of an authorization redirect
    /// (RFC 6749 §4.1.2.1); nil when there is no non-empty `error`.
    public init?(parameters: [String: String]) {
        guard let code = parameters["error"], !code.isEmpty else { return nil }
        self.init(
            code: OAuthErrorCode(rawValue: code), errorDescription: parameters["error_description"],
            errorURI: parameters["error_uri"])
    }

    /// The code and description as the cleaned ``ProviderError`` errors carry (E14).
    public var providerError: ProviderError? {
        ProviderError(code: code.rawValue, description: errorDescription)
    }

    /// The code and description, for logs.
    public var description: String {
        if let errorDescription { return "\(code.rawValue) (\(errorDescription))" }
        return code.rawValue
    }
}
