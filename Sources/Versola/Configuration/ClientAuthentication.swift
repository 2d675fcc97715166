import VersolaHTTP
import Foundation

/// How the client proves who it is at the provider's endpoints (RFC 6749 §2.3, A17).
///
/// A public client sends its `client_id` in the body. With a secret, `client_secret_basic`
/// (HTTP Basic, the RFC 8414 default) is used unless the provider lists only
/// `client_secret_post` in `token_endpoint_auth_methods_supported`; then both go in the body.
package enum ClientAuthentication: Sendable, Hashable {
    /// `client_id` in the body, no secret (RFC 6749 §2.1, public client).
    case none(clientID: String)
    /// HTTP Basic with the form-encoded id and secret (RFC 6749 §2.3.1).
    case basic(clientID: String, secret: ClientSecret)
    /// `client_id` and `client_secret` in the body (RFC 6749 §2.3.1).
    case post(clientID: String, secret: ClientSecret)

    /// The authentication a configuration uses at a provider.
    package init(configuration: ClientConfiguration, metadata: ProviderMetadata?) {
        let clientID = configuration.clientID
        guard let secret = configuration.clientSecret else {
            self = .none(clientID: clientID)
            return
        }
        let methods = metadata?.tokenEndpointAuthMethodsSupported ?? []
        if methods.contains("client_secret_post") && !methods.contains("client_secret_basic") {
            self = .post(clientID: clientID, secret: secret)
        } else {
            self = .basic(clientID: clientID, secret: secret)
        }
    }

    /// The client id, whichever way it travels.
    package var clientID: String {
        switch self {
        case .none(let clientID), .basic(let clientID, _), .post(let clientID, _): clientID
        }
    }

    /// Whether a secret is sent.
    package var sendsSecret: Bool {
        if case .none = self { return false }
        return true
    }

    /// Adds the client's credentials to a request's form and headers. A form that already
    /// names the client (a pushed authorization request carries `client_id` as one of its
    /// parameters) keeps its one `client_id`; otherwise HTTP Basic sends none in the body.
    package func apply(to form: inout FormBody, headers: inout HTTPHeaders) {
        let named = form["client_id"] != nil
        switch self {
        case .none(let clientID):
            if !named { form.append("client_id", clientID) }
        case .basic(let clientID, let secret):
            let pair = FormBody.encodedComponent(clientID) + ":" + FormBody.encodedComponent(secret.value)
            headers.set("Authorization", "Basic " + Data(pair.utf8).base64EncodedString())
        case .post(let clientID, let secret):
            if !named { form.append("client_id", clientID) }
            form.append("client_secret", secret.value)
        }
    }

    /// A request to `url` whose form carries the client's credentials: `POST`, form-encoded,
    /// JSON asked for.
    /// - Parameters:
    ///   - trailing: fields that follow the credentials (such as RFC 8707 `resource`).
    package func request(to url: URL, form: FormBody, trailing: [FormBody.Field] = []) -> HTTPRequest {
        var form = form
        var headers = HTTPHeaders()
        apply(to: &form, headers: &headers)
        form.fields += trailing
        headers.add("Content-Type", FormBody.contentType)
        headers.add("Accept", "application/json")
        return HTTPRequest(method: .post, url: url, headers: headers, body: form.encoded)
    }
}
