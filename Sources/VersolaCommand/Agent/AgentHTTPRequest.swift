import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// The arguments of `request`: an HTTP request sent through the session's authenticated client
/// (`{"method":"GET","url":…,"headers":[["Accept","application/json"]],"body":""}`, the body
/// in base64url).
public struct AgentHTTPRequest: Sendable, Hashable {
    /// One header line, `[name, value]` on the wire.
    public struct Header: Sendable, Hashable {
        public var name: String
        public var value: String

        /// Creates a header.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public var method: String
    public var url: String
    public var headers: [Header]
    public var body: [UInt8]

    /// Creates arguments.
    public init(method: String, url: String, headers: [Header] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The `args` member.
    var object: JSONObject {
        [
            "method": .string(method), "url": .string(url), "headers": Header.json(headers),
            "body": .string(Base64URL.encode(body)),
        ]
    }

    /// Reads the `args` member; what is missing takes its default (checked by ``httpRequest()``).
    init(_ object: JSONObject) {
        method = object["method"]?.string ?? "GET"
        url = object["url"]?.string ?? ""
        headers = Header.read(object["headers"])
        body = (try? Base64URL.decode(object["body"]?.string ?? "")) ?? []
    }

    /// The request to send.
    /// - Throws: `.configuration(.invalidConfiguration)` for a URL that is not absolute http(s)
    ///   or an unknown method.
    func httpRequest() throws(VersolaError) -> HTTPRequest {
        guard let url = URL(string: url), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            url.host != nil
        else { throw .configuration(.invalidConfiguration("request needs an absolute http(s) URL")) }
        guard let method = HTTPMethod(rawValue: method) else {
            throw .configuration(.invalidConfiguration("unsupported method \(method)"))
        }
        return HTTPRequest(method: method, url: url, headers: Header.http(headers), body: body)
    }
}

extension AgentHTTPRequest.Header {
    /// `[[name, value], …]`.
    static func json(_ headers: [Self]) -> JSONValue {
        .array(headers.map { [.string($0.name), .string($0.value)] })
    }

    /// The headers as the HTTP layer reads them.
    static func http(_ headers: [Self]) -> HTTPHeaders {
        var fields = HTTPHeaders()
        for header in headers { fields.add(header.name, header.value) }
        return fields
    }

    /// The pairs of `[[name, value], …]`; an entry that is not a pair of strings is skipped.
    static func read(_ value: JSONValue?) -> [Self] {
        (value?.array ?? []).compactMap { pair in
            guard let name = pair[0]?.string, let value = pair[1]?.string else { return nil }
            return Self(name, value)
        }
    }
}
