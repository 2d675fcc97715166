import Foundation
import VersolaHTTP
import VersolaJOSE

/// Reading the provider's answers in tests.
extension HTTPServerAction {
    /// The response, when the action is one.
    var response: HTTPServerResponse? {
        if case .respond(let response) = self { return response }
        return nil
    }

    /// The status code, when the action is a response.
    var status: Int? { response?.status }

    /// The body parsed as JSON.
    var json: JSONValue? {
        guard let body = response?.body, !body.isEmpty else { return nil }
        return try? JSONValue(parsing: body)
    }

    /// The body as text.
    var text: String { String(decoding: response?.body ?? [], as: UTF8.self) }

    /// The OAuth `error` of a JSON error body.
    var oauthError: String? { json?["error"]?.string }

    /// A header of the response.
    func header(_ name: String) -> String? { response?.headers[name] }

    /// The `Location` of a redirect.
    var location: String? { header("Location") }

    /// The query items of the redirect's `Location`, first occurrence winning.
    var redirectParameters: [String: String] {
        guard let location, let mark = location.firstIndex(of: "?") else { return [:] }
        var result: [String: String] = [:]
        for item in HTTPServerQueryItem.parse(String(location[location.index(after: mark)...]))
        where result[item.name] == nil {
            result[item.name] = item.value
        }
        return result
    }

    /// The part of `Location` before its query.
    var redirectBase: String? {
        guard let location else { return nil }
        return location.split(separator: "?", maxSplits: 1).first.map(String.init)
    }
}

/// The parameters of one `WWW-Authenticate` challenge: `DPoP error="x", algs="y"`.
struct AuthenticateChallenge: Equatable {
    var scheme: String
    var parameters: [String: String]

    /// Parses one challenge with quoted parameters (enough for the provider's own answers).
    init?(_ text: String?) {
        guard let text else { return nil }
        let parts = text.split(separator: " ", maxSplits: 1)
        guard let first = parts.first else { return nil }
        scheme = String(first)
        parameters = [:]
        guard parts.count == 2 else { return }
        var rest = Substring(parts[1])
        while let equals = rest.firstIndex(of: "=") {
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces.union(.init(charactersIn: ",")))
            rest = rest[rest.index(after: equals)...]
            guard rest.first == "\"" else { return nil }
            rest = rest.dropFirst()
            guard let close = rest.firstIndex(of: "\"") else { return nil }
            parameters[name] = String(rest[..<close])
            rest = rest[rest.index(after: close)...]
        }
    }
}
