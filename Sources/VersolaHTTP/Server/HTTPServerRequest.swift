/// One request the server received, parsed and checked against ``HTTPServerLimits``.
///
/// Its `description` names the method and path only: query strings and bodies may carry
/// authorization codes or tokens, so they are never printed.
///
/// ```swift
/// let code = request.queryValue("code")
/// ```
public struct HTTPServerRequest: Sendable, Hashable, CustomStringConvertible {
    /// The protocol version of a request line.
    public enum Version: String, Sendable, Hashable {
        /// `HTTP/1.0`: the connection closes after the answer unless asked to stay.
        case http1_0 = "HTTP/1.0"
        /// `HTTP/1.1`: the connection stays open unless `Connection: close` is sent.
        case http1_1 = "HTTP/1.1"
    }

    /// The method token exactly as sent (methods are case-sensitive): `GET`, `POST`, ….
    public var method: String
    /// The request target exactly as sent (origin-form `/path?query`, absolute-form, or `*`).
    public var target: String
    /// The path part of the target, still percent-encoded (`/callback`).
    public var path: String
    /// The raw query after `?`, still percent-encoded; nil when the target has no `?`.
    public var query: String?
    /// The protocol version.
    public var version: Version
    /// The header fields, in the order sent.
    public var headers: HTTPHeaders
    /// The body (`Content-Length` bytes; empty without one).
    public var body: [UInt8]
    /// Whether the connection may carry another request after this one's answer.
    public var keepAlive: Bool
    /// Who sent it. Set by the server; nil only for requests parsed outside a server.
    public var peer: HTTPServerPeer?

    /// Creates a request record.
    public init(
        method: String, target: String, version: Version = .http1_1, headers: HTTPHeaders = [:],
        body: [UInt8] = [], keepAlive: Bool = true, peer: HTTPServerPeer? = nil
    ) {
        self.method = method
        self.target = target
        let (path, query) = Self.splitTarget(target)
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = body
        self.keepAlive = keepAlive
        self.peer = peer
    }

    /// The query's items, decoded as `application/x-www-form-urlencoded` (`+` is a space).
    public var queryItems: [HTTPServerQueryItem] {
        query.map(HTTPServerQueryItem.parse) ?? []
    }

    /// The decoded value of the first query item of this name, or nil.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The body's items, decoded as `application/x-www-form-urlencoded`. Whatever the
    /// `Content-Type`, the body bytes are read this way.
    public var formItems: [HTTPServerQueryItem] {
        HTTPServerQueryItem.parse(String(decoding: body, as: UTF8.self))
    }

    /// The decoded value of the first form item of this name in the body, or nil.
    public func formValue(_ name: String) -> String? {
        formItems.first { $0.name == name }?.value
    }

    /// `METHOD /path (N body bytes)`; never the query or the body.
    public var description: String {
        "\(method) \(path) (\(body.count) body bytes)"
    }

    /// Splits a target into its path and query; an absolute-form target loses its
    /// scheme and authority, `*` stays as it is.
    static func splitTarget(_ target: String) -> (path: String, query: String?) {
        var rest = Substring(target)
        if let schemeEnd = rest.firstRange(of: "://"), !rest.hasPrefix("/") {
            let afterScheme = rest[schemeEnd.upperBound...]
            if let pathStart = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                rest = afterScheme[pathStart...]
            } else {
                rest = ""
            }
        }
        let path: Substring
        let query: String?
        if let mark = rest.firstIndex(of: "?") {
            path = rest[..<mark]
            query = String(rest[rest.index(after: mark)...])
        } else {
            path = rest
            query = nil
        }
        return (path.isEmpty ? "/" : String(path), query)
    }
}
