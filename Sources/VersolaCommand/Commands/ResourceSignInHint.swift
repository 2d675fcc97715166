import Foundation
import Versola
import VersolaJOSE

/// `versola request URL` at an API nobody signed in for (A19): when the API's 401 names its
/// metadata (RFC 9728 §5.1), the answer is the one line that signs in for it.
enum ResourceSignInHint {
    /// What the API answered a request without a token, and the sign-in line when it asked for one.
    struct Answer {
        var response: HTTPResponse
        var line: String?
    }

    /// The `versola login --resource …` line for a 401 whose `WWW-Authenticate` names
    /// `resource_metadata`, or nil; with the challenge's `scope` as `--scope` flags. The
    /// metadata's `resource` is the identifier to sign in for when it covers the URL (a request
    /// to `…/mcp/tools` is for the resource `…/mcp`); the request's URL when the metadata cannot
    /// be read or may not be fetched (only the API's origin, or https on a public host).
    static func line(status: Int, headers: HTTPHeaders, url: String) async -> String? {
        guard status == 401 else { return nil }
        let challenge = WWWAuthenticate(headers: headers)
        let bearer = challenge.challenge(scheme: "Bearer") ?? challenge.challenge(scheme: "DPoP")
        guard let named = bearer?["resource_metadata"], let metadataURL = URL(string: named) else { return nil }
        var resource = url
        if ProtectedResourceMetadata.allowsMetadataLocation(metadataURL, for: url),
            let answer = try? await CurlTransport().send(HTTPRequest(url: metadataURL), options: TransportOptions()),
            answer.status == 200, let document = try? JSONValue(parsing: answer.body), let identifier = document["resource"]?.string,
            let covering = ResourceURL(identifier), let asked = ResourceURL(url), covering.covers(asked)
        {
            resource = identifier
        }
        let scopes = (bearer?["scope"] ?? "").split(separator: " ").map { " --scope " + ShellWord.quoted(String($0)) }
        return "versola login --resource " + ShellWord.quoted(resource) + scopes.joined()
    }

    /// Sends the request as given, without a token, to learn whether the API names its
    /// authorization server (some challenge only the methods they serve): its answer, with the
    /// sign-in line when it does; nil when nothing answered.
    static func probe(_ options: RequestOptions, body: [UInt8]) async -> Answer? {
        guard let url = URL(string: options.url) else { return nil }
        let method = HTTPMethod(rawValue: (options.method ?? (body.isEmpty ? "GET" : "POST")).uppercased()) ?? .get
        var request = HTTPRequest(method: method, url: url, body: body)
        for header in options.headers where header.name.lowercased() != "authorization" {
            request.headers.add(header.name, header.value)
        }
        guard let response = try? await CurlTransport().send(request, options: TransportOptions()) else { return nil }
        return Answer(response: response, line: await line(status: response.status, headers: response.headers, url: options.url))
    }
}
