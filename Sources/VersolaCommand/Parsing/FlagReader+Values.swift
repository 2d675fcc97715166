import Foundation
import Versola

/// The values of the flags that take `NAME=VALUE`, a URL, a method or a header (A18, A19).
extension FlagReader {
    /// `NAME=VALUE` of `--auth-param`: a name the engine sets itself, or one with a flag of its
    /// own, is refused here with the flag to use (A18).
    func authorizationParameter(_ flag: ParsedFlag) throws(UsageError) -> (String, String) {
        let (key, value) = try pair(flag, shape: "NAME=VALUE")
        if let own = Self.parameterFlags[key] {
            throw UsageError("--auth-param \(key) has a flag of its own: use \(own)", command: command)
        }
        if key == "ui_locales" || key == "resource" {
            throw UsageError("--auth-param \(key) is a typed setting of the engine, not an extra parameter", command: command)
        }
        if AuthorizationParameters.ownedNames.contains(key) || key.hasPrefix("code_challenge") {
            throw UsageError(
                "--auth-param \(key) is set by versola itself and cannot be given (scopes go with --scope)", command: command)
        }
        return (key, value)
    }

    /// The authorization parameters that have flags of their own.
    private static let parameterFlags = [
        "prompt": "--prompt", "login_hint": "--login-hint", "acr_values": "--acr-values", "max_age": "--max-age",
    ]

    /// `NAME=URL` of `--endpoint`: a known endpoint name and an absolute URL (whether it is
    /// https is checked with the rest of the configuration).
    func endpoint(_ flag: ParsedFlag) throws(UsageError) -> (EndpointOverrides.Name, String) {
        let (key, value) = try pair(flag, shape: "NAME=URL")
        guard let name = EndpointOverrides.Name(rawValue: key) else {
            let names = EndpointOverrides.Name.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError("--endpoint \(key) is not an endpoint versola knows; use one of \(names)", command: command)
        }
        guard let url = URL(string: value), url.scheme != nil, url.host != nil else {
            throw UsageError("--endpoint \(key)= needs an absolute URL, such as https://host/path", command: command)
        }
        return (name, url.absoluteString)
    }

    /// `--resource URL`: an absolute URL (A19).
    func resource(_ flag: ParsedFlag) throws(UsageError) -> String {
        guard let text = flag.value, let url = URL(string: text), url.scheme != nil, url.host != nil else {
            throw UsageError("--resource needs the API's absolute URL, such as https://api.example.com/mcp", command: command)
        }
        return text
    }

    /// `-X METHOD`: letters only, sent in capitals.
    func method(_ flag: ParsedFlag) throws(UsageError) -> String {
        let value = flag.value ?? ""
        guard !value.isEmpty, value.utf8.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) }) else {
            throw UsageError("-X needs a method name such as GET or POST", command: command)
        }
        return value.uppercased()
    }

    /// `-H 'Name: value'`: a field name without spaces, and its value without surrounding blanks.
    func header(_ flag: ParsedFlag) throws(UsageError) -> HeaderArgument {
        let value = flag.value ?? ""
        guard let colon = value.firstIndex(of: ":"), colon != value.startIndex else {
            throw UsageError("-H needs 'Name: value'", command: command)
        }
        let field = String(value[..<colon]).trimmingBlanks
        let content = String(value[value.index(after: colon)...]).trimmingBlanks
        guard !field.isEmpty, !field.contains(" ") else { throw UsageError("-H needs 'Name: value'", command: command) }
        return HeaderArgument(name: field, value: content)
    }

    private func pair(_ flag: ParsedFlag, shape: String) throws(UsageError) -> (String, String) {
        let text = flag.value ?? ""
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw UsageError("\(flag.name) takes \(shape) (for example \(flag.name) \(Self.example(flag.name)))", command: command)
        }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }

    private static func example(_ flag: String) -> String {
        flag == "--endpoint" ? "token=https://login.example.com/oauth/token" : "access_type=offline"
    }
}
