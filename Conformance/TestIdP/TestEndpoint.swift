/// The provider's endpoints, as the fault plan and the request log name them.
public enum TestEndpoint: String, Sendable, Hashable, CaseIterable {
    /// `/.well-known/openid-configuration` under the issuer, or the RFC 8414 document
    /// (``TestMetadataDocument``).
    case discovery
    /// The JSON Web Key Set.
    case jwks
    /// The authorization endpoint (and its login form).
    case authorize
    /// The pushed authorization request endpoint (RFC 9126).
    case par
    /// The token endpoint.
    case token
    /// The UserInfo endpoint.
    case userinfo
    /// The revocation endpoint (RFC 7009).
    case revocation
    /// The end-session endpoint (RP-initiated logout).
    case endSession
    /// The device authorization endpoint (RFC 8628 §3.1).
    case deviceAuthorization
    /// The verification page where the person enters a user code and approves (RFC 8628 §3.3).
    case deviceVerification
    /// A protected resource that accepts the provider's access tokens.
    case resource
    /// The provider's administration API (fault plans, the request log); never faulted.
    case admin
    /// RFC 7591 dynamic client registration.
    case registration
    /// A protected resource's RFC 9728 metadata, on the resource server's origin.
    case resourceMetadata
    /// The RFC 8414 location (`/.well-known/oauth-authorization-server{path}`) of a provider that
    /// publishes its metadata elsewhere or not at all: `404` unless a fault is armed, so a stand-in
    /// can answer there as a proxy or a framework does (a 500, a login page, a redirect; A16).
    case oauthMetadata

    /// Where an RFC 8414 server's metadata is, before the issuer's path (A16).
    static let oauthMetadataPath = "/.well-known/oauth-authorization-server"

    /// The path below the issuer.
    var path: String {
        switch self {
        case .discovery: "/.well-known/openid-configuration"
        case .jwks: "/jwks"
        case .authorize: "/authorize"
        case .par: "/par"
        case .token: "/token"
        case .userinfo: "/userinfo"
        case .revocation: "/revoke"
        case .endSession: "/logout"
        case .deviceAuthorization: "/device_authorization"
        case .deviceVerification: "/device"
        case .resource: "/resource"
        case .admin: "/_admin"
        case .registration: "/register"
        case .resourceMetadata: "/.well-known/oauth-protected-resource"
        case .oauthMetadata: Self.oauthMetadataPath
        }
    }
}
