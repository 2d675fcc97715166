/// An HTTP request method.
///
/// Typed so that a misspelt method is a compile error; `rawValue` is the token sent on the wire.
///
/// ```swift
/// let request = HTTPRequest(method: .post, url: tokenEndpoint, body: form)
/// print(request.method)
/// ```
public enum HTTPMethod: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `GET`: discovery, JWKS, UserInfo.
    case get = "GET"
    /// `POST`: token, PAR and revocation endpoints.
    case post = "POST"
    /// `PUT`, for application requests.
    case put = "PUT"
    /// `PATCH`, for application requests.
    case patch = "PATCH"
    /// `DELETE`, for application requests.
    case delete = "DELETE"
    /// `HEAD`: the answer has no body.
    case head = "HEAD"
    /// `OPTIONS`, for application requests.
    case options = "OPTIONS"

    /// The method token as sent on the wire (`GET`, `POST`, …).
    public var description: String { rawValue }

    /// Whether sending it twice does no more than sending it once (RFC 9110 §9.2.2).
    public var isIdempotent: Bool {
        switch self {
        case .get, .head, .options, .put, .delete: true
        case .post, .patch: false
        }
    }
}
