import Foundation

/// One HTTP request as the transport sends it: method, absolute URL, header fields and body bytes.
///
/// The value holds secrets (authorization headers, codes in form bodies), so its
/// `description` names only the method and the origin.
///
/// ```swift
/// var request = HTTPRequest(method: .get, url: jwksURL)
/// request.headers.add("Accept", "application/json")
/// ```
public struct HTTPRequest: Sendable, Hashable, CustomStringConvertible {
    /// The request method.
    public var method: HTTPMethod
    /// The absolute `http` or `https` URL the request goes to.
    public var url: URL
    /// The header fields, in order. The transport adds `Host` and `Content-Length` itself.
    public var headers: HTTPHeaders
    /// The body bytes; empty for none.
    public var body: [UInt8]

    /// Creates a request.
    /// - Parameters:
    ///   - method: the method, `GET` by default.
    ///   - url: the absolute URL.
    ///   - headers: header fields, kept in order.
    ///   - body: body bytes, empty by default.
    public init(method: HTTPMethod = .get, url: URL, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The origin the request goes to, or nil when the URL has no usable scheme and host.
    public var origin: Origin? { Origin(url: url) }

    /// The method and origin only: never the path, query, headers or body, which may hold secrets.
    public var description: String {
        "\(method) \(origin?.description ?? "<invalid URL>")"
    }
}
