import VersolaHTTP
import VersolaJOSE

/// One way the provider can be told to misbehave. A scenario arms faults per endpoint
/// through a ``TestFaultPlan``; everything not armed behaves like a strict provider.
public enum TestFault: Sendable, Hashable {
    /// Answer with this status, headers (`Retry-After`, `DPoP-Nonce`, `WWW-Authenticate`, …)
    /// and body instead of handling the request.
    case respond(status: Int, headers: [String: String] = [:], body: String = "")
    /// Wait this many milliseconds (real time), then handle the request normally.
    case delay(milliseconds: Int)
    /// Hold the request until ``TestProvider/releaseHeld()`` (or a minute), then handle it
    /// normally: for a scenario that needs another event to happen while it is in flight,
    /// whatever the machine's speed.
    case holdUntilReleased
    /// Create these files (empty), then handle the request normally: a switch that must be on
    /// before the client reads the answer (a fault library's, say) is turned on by the
    /// provider itself, at the request, whatever the pace of the scenario that armed it.
    case createFiles([String])
    /// Close the next connection before reading anything (connection level: the
    /// endpoint is not known yet, so this applies to whichever request comes next).
    case closeBeforeReading
    /// Read the request, then close without answering.
    case closeAfterReading
    /// Read the request, then reset the connection.
    case reset
    /// Answer `302 Found` to this location.
    case redirect(location: String)
    /// Discovery: serve a different `issuer` than the real one.
    case wrongIssuer
    /// Authorization: put a wrong RFC 9207 `iss` on the redirect.
    case wrongRedirectIssuer
    /// Token: sign the ID token with a key the JWKS does not publish.
    case unknownSigningKey
    /// Token: corrupt the ID token's signature.
    case badSignature
    /// Token: issue an unsigned ID token (`alg: none`).
    case algNone
    /// Token: put a wrong `nonce` in the ID token.
    case wrongNonce
    /// Token: put a wrong `aud` in the ID token.
    case wrongAudience
    /// Token: issue an ID token that expired an hour ago.
    case expiredIDToken
    /// Token: issue an ID token whose `iss` differs from the issuer.
    case wrongIDTokenIssuer
    /// Token: put a wrong `at_hash` in the ID token.
    case wrongAccessTokenHash
    /// Token, PAR, UserInfo, resource: demand a fresh DPoP nonce on every request.
    case demandNonceForever
    /// Token, PAR, UserInfo, resource: reject the DPoP proof as invalid once handled.
    case invalidDPoPProof
    /// Token: answer a DPoP request with `token_type` Bearer (D5).
    case bearerTokenType
    /// UserInfo: answer with a `sub` that differs from the ID token's (A8).
    case wrongUserInfoSubject
    /// Answer an OAuth error with this code: `invalid_grant` at the token endpoint,
    /// `access_denied`, `login_required`, … on the authorization redirect.
    case oauthError(String)
    /// Resource: demand a step-up (`insufficient_user_authentication`) with these values.
    case stepUp(acrValues: String, maxAge: Int?)
    /// UserInfo, resource: refuse a valid token with an RFC 6750 §3.1 error: `invalid_request`
    /// (400), `invalid_token` (401), `insufficient_scope` (403), or another code (400), in a
    /// `WWW-Authenticate` challenge of the token's scheme with this `error_description`.
    case bearerError(code: String, description: String)
}

/// A fault armed on one endpoint, for a number of requests or for ever.
public struct TestFaultRule: Sendable, Hashable {
    /// The endpoint it applies to.
    public var endpoint: TestEndpoint
    /// What to do.
    public var fault: TestFault
    /// How many more requests it applies to; nil for every request.
    public var remaining: Int?

    /// Arms `fault` on `endpoint` for `times` requests (nil: for ever).
    public init(_ endpoint: TestEndpoint, _ fault: TestFault, times: Int? = 1) {
        self.endpoint = endpoint
        self.fault = fault
        self.remaining = times
    }
}

/// A list of armed faults, as data. Its JSON form, for `--fault-plan FILE` and
/// `POST /_admin/faults`:
///
/// ```json
/// {"faults": [
///   {"endpoint": "token", "fault": "respond", "status": 503, "headers": {"Retry-After": "3"}, "times": 2},
///   {"endpoint": "authorize", "fault": "oauthError", "error": "access_denied"},
///   {"endpoint": "token", "fault": "demandNonceForever", "times": null}
/// ]}
/// ```
/// `times` defaults to 1; `null` means every request.
public struct TestFaultPlan: Sendable, Hashable {
    /// The rules, consulted in order.
    public var rules: [TestFaultRule]

    /// Creates a plan.
    public init(_ rules: [TestFaultRule] = []) {
        self.rules = rules
    }

    /// Reads the JSON form.
    /// - Throws: ``TestFaultPlanError`` naming the first entry it cannot read.
    public init(json text: String) throws(TestFaultPlanError) {
        let document: JSONValue
        do { document = try JSONValue(parsing: text) } catch { throw TestFaultPlanError(reason: "not JSON: \(error)") }
        guard let entries = document["faults"]?.array else {
            throw TestFaultPlanError(reason: "expected an object with a \"faults\" array")
        }
        var rules: [TestFaultRule] = []
        for (index, entry) in entries.enumerated() {
            guard let name = entry["endpoint"]?.string, let endpoint = TestEndpoint(rawValue: name) else {
                throw TestFaultPlanError(reason: "entry \(index): unknown or missing endpoint")
            }
            guard let fault = Self.fault(from: entry) else {
                throw TestFaultPlanError(reason: "entry \(index): unknown fault or missing parameter")
            }
            let times: Int?
            switch entry["times"] {
            case .none: times = 1
            case .some(.null): times = nil
            case .some(let value):
                guard let count = value.int64, count > 0 else {
                    throw TestFaultPlanError(reason: "entry \(index): times must be a positive integer or null")
                }
                times = Int(count)
            }
            rules.append(TestFaultRule(endpoint, fault, times: times))
        }
        self.rules = rules
    }

    private static func fault(from entry: JSONValue) -> TestFault? {
        switch entry["fault"]?.string {
        case "respond":
            guard let status = entry["status"]?.int64, (100...599).contains(status) else { return nil }
            var headers: [String: String] = [:]
            for member in entry["headers"]?.object ?? JSONObject() {
                guard let value = member.value.string else { return nil }
                headers[member.name] = value
            }
            return .respond(status: Int(status), headers: headers, body: entry["body"]?.string ?? "")
        case "delay":
            guard let milliseconds = entry["milliseconds"]?.int64, milliseconds >= 0 else { return nil }
            return .delay(milliseconds: Int(milliseconds))
        case "closeBeforeReading": return .closeBeforeReading
        case "closeAfterReading": return .closeAfterReading
        case "reset": return .reset
        case "redirect":
            guard let location = entry["location"]?.string else { return nil }
            return .redirect(location: location)
        case "wrongIssuer": return .wrongIssuer
        case "wrongRedirectIssuer": return .wrongRedirectIssuer
        case "unknownSigningKey": return .unknownSigningKey
        case "badSignature": return .badSignature
        case "algNone": return .algNone
        case "wrongNonce": return .wrongNonce
        case "wrongAudience": return .wrongAudience
        case "expiredIDToken": return .expiredIDToken
        case "wrongIDTokenIssuer": return .wrongIDTokenIssuer
        case "wrongAccessTokenHash": return .wrongAccessTokenHash
        case "demandNonceForever": return .demandNonceForever
        case "invalidDPoPProof": return .invalidDPoPProof
        case "bearerTokenType": return .bearerTokenType
        case "wrongUserInfoSubject": return .wrongUserInfoSubject
        case "oauthError":
            guard let code = entry["error"]?.string else { return nil }
            return .oauthError(code)
        case "bearerError":
            guard let code = entry["error"]?.string else { return nil }
            return .bearerError(code: code, description: entry["error_description"]?.string ?? "")
        case "stepUp":
            guard let acr = entry["acr_values"]?.string else { return nil }
            return .stepUp(acrValues: acr, maxAge: entry["max_age"]?.int64.map { Int($0) })
        default: return nil
        }
    }
}

/// A fault plan that could not be read.
public struct TestFaultPlanError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public var reason: String
    public var description: String { "fault plan: \(reason)" }
}
