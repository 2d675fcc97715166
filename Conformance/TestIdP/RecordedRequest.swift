import Foundation
import VersolaHTTP

/// One request the provider received, kept so a scenario can assert what was or was not
/// sent (for example: no token request after a state mismatch, E12).
public struct RecordedRequest: Sendable, Hashable {
    /// Which endpoint it reached (nil for an unknown path).
    public var endpoint: TestEndpoint?
    /// The HTTP method.
    public var method: String
    /// The request target (path and query).
    public var target: String
    /// Every header field.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: [UInt8]
    /// When it arrived, on the provider's clock.
    public var receivedAt: Date

    /// The body's form field `name`, when the body is `application/x-www-form-urlencoded`.
    public func formValue(_ name: String) -> String? {
        FormEncoding.decode(String(decoding: body, as: UTF8.self))[name]
    }

    /// The decoded claims of the request's `DPoP` proof, when it has a well-formed one.
    public var dpopProofClaims: [String: String] {
        guard let proof = headers["DPoP"] else { return [:] }
        return DPoPProofInspector.stringClaims(of: proof)
    }
}
