/// The versions of kubectl's credential-plugin API (`client.authentication.k8s.io`) that
/// `versola token --format k8s` answers in.
public enum ExecCredentialVersion: String, Sendable, Hashable, CaseIterable {
    /// `client.authentication.k8s.io/v1` (kubectl 1.22 and later), the default.
    case v1 = "client.authentication.k8s.io/v1"
    /// `client.authentication.k8s.io/v1beta1` (kubectl 1.11 and later).
    case v1beta1 = "client.authentication.k8s.io/v1beta1"

    /// The short name `setup-kubectl --api-version` takes: `v1`, `v1beta1`.
    public var shortName: String { String(rawValue.split(separator: "/").last ?? "") }

    /// The version named `v1` or `v1beta1`, or by its full `apiVersion`.
    public init?(named name: String) {
        guard let version = Self.allCases.first(where: { $0.shortName == name || $0.rawValue == name }) else {
            return nil
        }
        self = version
    }

    /// Both versions, for messages: `client.authentication.k8s.io/v1 and …/v1beta1`.
    static var supportedList: String { allCases.map(\.rawValue).joined(separator: " and ") }
}
