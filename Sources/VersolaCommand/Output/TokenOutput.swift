import Foundation
import VersolaJOSE

/// How `versola token` prints the agent's token result.
enum TokenOutput {
    /// When the token's expiry is unknown (an opaque token), kubectl is told to ask again
    /// after this long; the agent answers such repeats from memory.
    static let unknownExpiryLifetime: Int64 = 60

    static func render(_ result: JSONValue, format: TokenFormat, now: Int64 = Int64(time(nil))) -> String {
        let token = result["accessToken"]?.string ?? ""
        let expiresAt = result["expiresAt"]?.int64
        switch format {
        case .raw:
            // A genuine token is visible ASCII (RFC 6749 VSCHAR) and passes unchanged.
            return TerminalText.visible(token) + "\n"
        case .json:
            let value: JSONValue = [
                "accessToken": .string(token), "tokenType": result["tokenType"] ?? "Bearer",
                "expiresAt": expiresAt.map { .string(AccessTokenExpiry.rfc3339($0)) } ?? .null,
            ]
            return value.serialized() + "\n"
        case .k8s:
            let expiry = expiresAt ?? now + unknownExpiryLifetime
            let value: JSONValue = [
                "apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                "status": ["token": .string(token), "expirationTimestamp": .string(AccessTokenExpiry.rfc3339(expiry))],
            ]
            return value.serialized() + "\n"
        }
    }
}
