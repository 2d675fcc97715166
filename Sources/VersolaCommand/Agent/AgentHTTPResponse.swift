import VersolaHTTP
import VersolaJOSE

/// The result of `request`: the resource's answer (`{"status":200,"headers":[…],"body":…}`,
/// the body in base64url), whatever its status (E10).
public struct AgentHTTPResponse: AgentResultBody, Hashable {
    public var status: Int
    public var headers: [AgentHTTPRequest.Header]
    public var body: [UInt8]

    /// Creates a result.
    public init(status: Int, headers: [AgentHTTPRequest.Header] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The result for `response`.
    init(_ response: HTTPResponse) {
        self.init(
            status: response.status, headers: response.headers.map { AgentHTTPRequest.Header($0.name, $0.value) },
            body: response.body)
    }

    /// The headers as the HTTP layer reads them.
    var httpHeaders: HTTPHeaders { AgentHTTPRequest.Header.http(headers) }

    public var json: JSONValue {
        [
            "status": .integer(Int64(status)), "headers": AgentHTTPRequest.Header.json(headers),
            "body": .string(Base64URL.encode(body)),
        ]
    }

    public init?(json: JSONValue) {
        guard let status = json["status"]?.int64, let fitting = Int(exactly: status), let text = json["body"]?.string,
            let body = try? Base64URL.decode(text)
        else { return nil }
        self.init(status: fitting, headers: AgentHTTPRequest.Header.read(json["headers"]), body: body)
    }
}
