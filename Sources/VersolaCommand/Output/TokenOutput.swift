import Foundation
import VersolaJOSE

/// How `versola token` prints the agent's token result (the `token` or `id-token` answer).
enum TokenOutput {
    /// When a token's expiry is unknown (an opaque access token the provider gave no
    /// `expires_in` for), kubectl is told it expires after this long.
    ///
    /// kubectl keeps an ExecCredential in memory until its `expirationTimestamp`; one without
    /// it is used until the server refuses a request with 401, and that request fails (a long
    /// `kubectl get --watch` or `port-forward` meets it when the token runs out). A short
    /// lifetime instead makes kubectl ask again a minute later, before anything fails, and the
    /// agent answers such repeats from memory, refreshing only near the real expiry.
    static let unknownExpiryLifetime: Int64 = 60

    /// The text for `result` in `format`.
    /// - Parameters:
    ///   - apiVersion: the ExecCredential version for `.k8s`.
    ///   - now: seconds since 1970, for an unknown expiry.
    static func render(
        _ result: AgentTokenResult, format: TokenFormat, apiVersion: ExecCredentialVersion = .v1,
        now: Int64 = Int64(time(nil))
    ) -> String {
        switch format {
        case .raw:
            // A genuine token is visible ASCII (RFC 6749 VSCHAR; a JWS is base64url) and passes unchanged.
            return TerminalText.visible(result.value) + "\n"
        case .json:
            // The agent's result with the expiry in RFC 3339.
            guard case .object(var members) = result.json else { return "" }
            members["expiresAt"] = result.expiresAt.map { .string(AccessTokenExpiry.rfc3339($0)) } ?? .null
            return JSONValue.object(members).serialized() + "\n"
        case .k8s:
            return execCredential(
                token: result.value, expiresAt: result.expiresAt ?? now + unknownExpiryLifetime, apiVersion: apiVersion)
        }
    }

    /// An ExecCredential (the same members in `v1` and `v1beta1`) and a newline.
    static func execCredential(token: String, expiresAt: Int64, apiVersion: ExecCredentialVersion) -> String {
        let value: JSONValue = [
            "apiVersion": .string(apiVersion.rawValue), "kind": "ExecCredential",
            "status": ["token": .string(token), "expirationTimestamp": .string(AccessTokenExpiry.rfc3339(expiresAt))],
        ]
        return value.serialized() + "\n"
    }
}

extension TokenKind {
    /// The member of the agent's answer that holds the token.
    var resultMember: String {
        switch self {
        case .access: "accessToken"
        case .id: "idToken"
        }
    }
}
