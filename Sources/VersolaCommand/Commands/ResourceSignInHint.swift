import Foundation
import Versola
import VersolaJOSE

/// `versola request URL` at an API nobody signed in for (A19): when the API's 401 names its
/// metadata (RFC 9728 §5.1), the answer is the one line that signs in for it.
enum ResourceSignInHint {
    /// The `versola login --resource …` line for a 401 whose `WWW-Authenticate` names
    /// `resource_metadata`, or nil. The metadata's `resource` is the identifier to sign in for
    /// (a request to `…/mcp/tools` is for the resource `…/mcp`); the request's URL when the
    /// metadata cannot be read.
    static func line(status: Int, headers: HTTPHeaders, url: String) async -> String? {
        guard status == 401 else { return nil }
        let challenge = WWWAuthenticate(headers: headers)
        guard let named = (challenge.challenge(scheme: "Bearer") ?? challenge.challenge(scheme: "DPoP"))?["resource_metadata"],
            let metadataURL = URL(string: named)
        else { return nil }
        var resource = url
        if let answer = try? await CurlTransport().send(HTTPRequest(url: metadataURL), options: TransportOptions()),
            answer.status == 200, let document = try? JSONValue(parsing: answer.body), let identifier = document["resource"]?.string,
            url.hasPrefix(identifier)
        {
            resource = identifier
        }
        return "versola login --resource " + ShellWord.quoted(resource)
    }

    /// Sends the request as given, without a token, to learn whether the API names its
    /// authorization server (some challenge only the methods they serve); the sign-in line
    /// when it does, nil otherwise (or when nothing answered).
    static func probe(_ options: RequestOptions, body: [UInt8]) async -> String? {
        guard let url = URL(string: options.url) else { return nil }
        let method = HTTPMethod(rawValue: (options.method ?? (body.isEmpty ? "GET" : "POST")).uppercased()) ?? .get
        var request = HTTPRequest(method: method, url: url, body: body)
        for header in options.headers where header.name.lowercased() != "authorization" {
            request.headers.add(header.name, header.value)
        }
        guard let response = try? await CurlTransport().send(request, options: TransportOptions()) else { return nil }
        return await line(status: response.status, headers: response.headers, url: options.url)
    }
}
