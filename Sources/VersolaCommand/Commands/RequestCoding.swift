import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// How `versola request`'s HTTP request and response cross the agent socket: method, URL,
/// header pairs, and the body in base64url.
enum RequestCoding {
    static func encode(_ options: RequestOptions, body: [UInt8]) -> JSONObject {
        [
            "method": .string(options.effectiveMethod), "url": .string(options.url),
            "headers": .array(options.headers.map { [.string($0.name), .string($0.value)] }),
            "body": .string(Base64URL.encode(body)),
        ]
    }

    /// - Throws: `.configuration(.invalidConfiguration)` for a malformed request.
    static func decodeRequest(_ arguments: JSONObject) throws(VersolaError) -> HTTPRequest {
        guard let text = arguments["url"]?.string, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host != nil
        else { throw .configuration(.invalidConfiguration("request needs an absolute http(s) URL")) }
        guard let method = HTTPMethod(rawValue: arguments["method"]?.string ?? "GET") else {
            throw .configuration(.invalidConfiguration("unsupported method \(arguments["method"]?.string ?? "")"))
        }
        var headers = HTTPHeaders()
        for pair in arguments["headers"]?.array ?? [] {
            guard let name = pair[0]?.string, let value = pair[1]?.string else { continue }
            headers.add(name, value)
        }
        let body = (try? Base64URL.decode(arguments["body"]?.string ?? "")) ?? []
        return HTTPRequest(method: method, url: url, headers: headers, body: body)
    }

    static func encode(_ response: HTTPResponse) -> JSONValue {
        [
            "status": .integer(Int64(response.status)),
            "headers": .array(response.headers.map { [.string($0.name), .string($0.value)] }),
            "body": .string(Base64URL.encode(response.body)),
        ]
    }
}
