import VersolaHTTP
import Foundation
import VersolaCrypto

/// The authorization response carried by the redirect back to the app (RFC 6749 §4.1.2,
/// RFC 9207), parsed from the redirect's query.
public struct AuthorizationRedirect: Sendable, Hashable, CustomStringConvertible {
    /// Every query parameter, first occurrence of each name.
    let parameters: [String: String]

    /// Parses a redirect URL, absolute (`http://127.0.0.1:PORT/callback?code=…`) or just its
    /// path and query (`/callback?code=…`).
    /// - Throws: `.configuration(.stateMismatch)` when there is no query to read: a
    ///   response that cannot be matched to the request is treated like a mismatched one.
    public init(url: String) throws(VersolaError) {
        guard let mark = url.firstIndex(of: "?") else { throw .configuration(.stateMismatch) }
        var query = url[url.index(after: mark)...]
        if let fragment = query.firstIndex(of: "#") { query = query[..<fragment] }
        self.init(query: String(query))
    }

    /// Parses a query string (`code=…&state=…&iss=…`).
    public init(query: String) {
        var parameters: [String: String] = [:]
        for item in HTTPServerQueryItem.parse(query) where parameters[item.name] == nil {
            parameters[item.name] = item.value
        }
        self.parameters = parameters
    }

    /// The value that ties the response to its request (`state`).
    public var state: String? { parameters["state"] }
    /// The issuer that sent the response (`iss`, RFC 9207), when present.
    public var issuer: String? { parameters["iss"] }
    /// The authorization code, on success. Secret.
    public var code: String? { parameters["code"] }
    /// The `error` code, on failure.
    public var error: String? { parameters["error"] }
    /// The `error_description`, for logs only.
    public var errorDescription: String? { parameters["error_description"] }

    /// Whether it looks like an authorization response at all (has a code or an error).
    public var isAuthorizationResponse: Bool { code != nil || error != nil }

    /// Whether its `state` is `expected` (compared in constant time); false without a `state`.
    public func carries(state expected: String) -> Bool {
        guard let state else { return false }
        return constantTimeEqual(Array(state.utf8), Array(expected.utf8))
    }

    /// Validates the redirect against the pending request (A5, E12) and returns the code.
    ///
    /// Order: `state` first (a mismatch says nothing trustworthy, even an error), then
    /// RFC 9207 `iss` when present or when the provider advertises it, then an error
    /// response mapped per E9, then the code.
    /// - Parameters:
    ///   - pending: the request it answers.
    ///   - issuerParameterRequired: the provider advertises
    ///     `authorization_response_iss_parameter_supported`.
    /// - Throws: `.configuration(.stateMismatch)`, `.configuration(.issuerMismatch)`,
    ///   `.reauthenticate(.authorizationDenied | .interactionRequired)`,
    ///   `.configuration(.authorizationRejected)` for other error codes, carrying the code and
    ///   description (cleaned, E14).
    public func validatedCode(for pending: PendingAuthorization, issuerParameterRequired: Bool) throws(VersolaError)
        -> String
    {
        guard carries(state: pending.state) else { throw .configuration(.stateMismatch) }
        if let issuer {
            guard issuer == pending.issuer else { throw .configuration(.issuerMismatch) }
        } else if issuerParameterRequired {
            throw .configuration(.issuerMismatch)
        }
        if let error { throw Self.mapError(error, description: errorDescription) }
        guard let code, !code.isEmpty else {
            throw .configuration(.authorizationRejected("the redirect carried neither a code nor an error"))
        }
        return code
    }

    /// E9: authorization-endpoint errors, by code only (E6).
    static func mapError(_ code: String, description: String?) -> VersolaError {
        switch code {
        case "access_denied": .reauthenticate(.authorizationDenied)
        case "login_required", "interaction_required", "consent_required", "account_selection_required":
            .reauthenticate(.interactionRequired)
        default:
            .configuration(
                .authorizationRejected(
                    "the provider refused the authorization request",
                    provider: ProviderError(code: code, description: description)))
        }
    }

    public var description: String {
        error.map { "AuthorizationRedirect(error \($0))" } ?? "AuthorizationRedirect(code present: \(code != nil))"
    }
}
