import Versola
import VersolaHTTP
import VersolaJOSE

/// What kubectl tells a credential plugin in `KUBERNETES_EXEC_INFO`: a JSON ExecCredential
/// whose `apiVersion` is the version it wants the answer in, and whose `spec.interactive`
/// says whether the plugin may talk to the person (its standard input is then the terminal).
///
/// ```swift
/// let info = try KubernetesExecInfo(environment: ["KUBERNETES_EXEC_INFO":
///     #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{"interactive":true}}"#])
/// // info.apiVersion == .v1beta1, info.interactive == true
/// ```
public struct KubernetesExecInfo: Sendable, Hashable {
    /// The variable kubectl sets.
    public static let variable = "KUBERNETES_EXEC_INFO"

    /// The version of the ExecCredential to answer.
    public var apiVersion: ExecCredentialVersion
    /// Whether kubectl lets the plugin interact with the person.
    public var interactive: Bool

    /// The information given.
    public init(apiVersion: ExecCredentialVersion = .v1, interactive: Bool = false) {
        self.apiVersion = apiVersion
        self.interactive = interactive
    }

    /// Reads the variable from `environment`. Absent or empty: `v1`, not interactive (the
    /// plugin was run by hand, or by a kubectl older than 1.22, which sets nothing).
    /// - Throws: `.configuration(.invalidConfiguration)` when the value is not the JSON
    ///   object kubectl writes, or names a version versola does not answer in.
    public init(environment: [String: String]) throws(VersolaError) {
        guard let text = environment[Self.variable], !text.allSatisfy({ $0.isWhitespace }) else {
            self.init()
            return
        }
        try self.init(json: text)
    }

    /// Parses the variable's value.
    /// - Throws: `.configuration(.invalidConfiguration)`, as ``init(environment:)``.
    public init(json text: String) throws(VersolaError) {
        let value: JSONValue
        do throws(JSONError) {
            value = try JSONValue(parsing: Array(text.utf8))
        } catch {
            throw Self.problem("is not valid JSON (the problem is at byte \(error.offset))")
        }
        guard value.object != nil else { throw Self.problem("is not a JSON object") }
        guard let name = value["apiVersion"]?.string else { throw Self.problem("names no apiVersion") }
        guard let version = ExecCredentialVersion(rawValue: name) else {
            let shown = name.count > 80 ? String(name.prefix(80)) + "…" : name
            throw .configuration(
                .invalidConfiguration(
                    "kubectl asked for an ExecCredential in \(shown), and versola answers in "
                        + "\(ExecCredentialVersion.supportedList) only; set the exec apiVersion of the kubeconfig "
                        + "user to one of them (versola setup-kubectl --api-version v1 prints such a user)"))
        }
        let spec = value["spec"]
        if let spec, spec.object == nil, spec != .null { throw Self.problem("has a spec that is not an object") }
        let interactive = spec?["interactive"]
        if let interactive, interactive.bool == nil, interactive != .null {
            throw Self.problem("has a spec.interactive that is neither true nor false")
        }
        self.init(apiVersion: version, interactive: interactive?.bool ?? false)
    }

    private static func problem(_ what: String) -> VersolaError {
        .configuration(
            .invalidConfiguration(
                "\(variable) \(what); it should hold the ExecCredential kubectl hands its credential plugins "
                    + "(when it is unset, versola answers in \(ExecCredentialVersion.v1.rawValue))"))
    }
}
