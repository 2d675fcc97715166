import Foundation
import VersolaHTTP

extension TestProvider {
    /// The client a token request comes from (RFC 6749 §2.3.1): named by HTTP Basic or by
    /// `client_id` in the form. A client with a secret must present it (Basic or
    /// `client_secret`); a public client is known by its id alone.
    func authenticatedClient(_ request: HTTPServerRequest, form: [String: String]) -> TestClient? {
        let basic = request.headers["Authorization"].flatMap(Self.basicCredentials)
        guard let client = configuration.client(basic?.id ?? form["client_id"]) else { return nil }
        guard let secret = client.secret else { return client }
        return (basic?.secret ?? form["client_secret"]) == secret ? client : nil
    }

    /// `Basic base64(urlencoded-id ":" urlencoded-secret)`, decoded; nil when malformed.
    static func basicCredentials(_ header: String) -> (id: String, secret: String)? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", let data = Data(base64Encoded: String(parts[1])),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":"),
            let id = HTTPServerQueryItem.percentDecoded(text[..<colon], plusAsSpace: true),
            let secret = HTTPServerQueryItem.percentDecoded(text[text.index(after: colon)...], plusAsSpace: true)
        else { return nil }
        return (id, secret)
    }
}
