import VersolaHTTP
import VersolaJOSE

extension TestProvider {
    /// A token answer in the shape the configured provider gives it: GitHub's OAuth endpoints
    /// answer form-encoded unless `Accept` asks for JSON, and report errors with status 200
    /// (its documentation: "Accept: application/json" selects JSON; errors such as
    /// `bad_verification_code` come back in a 200).
    func shapedTokenAnswer(_ action: HTTPServerAction, request: HTTPServerRequest) -> HTTPServerAction {
        guard case .respond(var response) = action else { return action }
        let isError = (400..<500).contains(response.status)
        if configuration.tokenErrorsWithStatus200, isError {
            response.status = 200
            response.reason = "OK"
        }
        let acceptsJSON = (request.headers["Accept"] ?? "").lowercased().contains("application/json")
        if configuration.formEncodedUnlessJSONAccepted, !acceptsJSON,
            case .object(let object) = (try? JSONValue(parsing: response.body)) ?? .null
        {
            let fields = object.members.map { member -> FormBody.Field in
                let text: String
                switch member.value {
                case .string(let value): text = value
                default: text = member.value.serialized()
                }
                return FormBody.Field(name: member.name, value: text)
            }
            response.body = FormBody(fields).encoded
            response.headers.set("Content-Type", FormBody.contentType)
        }
        return .respond(response)
    }

    /// GitHub's API refuses a request without `User-Agent` (403); nil when the request may pass.
    func missingUserAgent(_ request: HTTPServerRequest) -> HTTPServerAction? {
        guard configuration.requireUserAgent, (request.headers["User-Agent"] ?? "").isEmpty else { return nil }
        return .respond(
            HTTPServerResponse(
                status: 403, headers: ["Content-Type": "text/plain"],
                body: Array("Request forbidden by administrative rules. Please make sure your request has a User-Agent header.\n".utf8)))
    }
}
